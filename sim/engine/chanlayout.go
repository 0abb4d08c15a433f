//go:build !go1.27

package engine

import (
	"reflect"
	"unsafe"
)

// Channels read in place. A buffered channel that a node keeps as a queue
// is part of its state, and Go offers no way to read a channel's buffer
// without receiving from it (which a hash must not do). Go 1.24 to 1.26's
// runtime (runtime.hchan) starts with the number of elements buffered, the
// capacity, the buffer, the element size and the closed flag, and has the
// index of the next element to receive after two pointers and the send
// index. The layout is checked, not assumed: chansOK tries it on real
// channels once; on a mismatch (or another Go release, chanlayout_other.go)
// a channel's contents count as state that hashing cannot read.
type chanHeader struct {
	qcount   uint
	dataqsiz uint
	buf      unsafe.Pointer
	elemsize uint16
	closed   uint32
	timer    unsafe.Pointer
	elemtype unsafe.Pointer
	sendx    uint
	recvx    uint
}

// chanView is what readChan finds in a channel: whether it is closed, its
// capacity and its buffered elements in receive order.
type chanView struct {
	closed bool
	cap    int
	elems  []unsafe.Pointer
}

// readChan reads the channel v (not nil) in place; false when channels are
// not laid out as chanHeader says. It must not run while another goroutine
// uses the channel: a simulator's handlers run one at a time, and hashing
// runs between them.
func readChan(v reflect.Value, into []unsafe.Pointer) (chanView, bool) {
	if !chansOK {
		return chanView{}, false
	}
	h := (*chanHeader)(v.UnsafePointer())
	size := v.Type().Elem().Size()
	if uintptr(h.elemsize) != size || h.qcount > h.dataqsiz || (h.dataqsiz > 0 && h.recvx >= h.dataqsiz) {
		return chanView{}, false
	}
	cv := chanView{closed: h.closed != 0, cap: int(h.dataqsiz), elems: into[:0]}
	for i := uint(0); i < h.qcount; i++ {
		cv.elems = append(cv.elems, unsafe.Add(h.buf, uintptr((h.recvx+i)%h.dataqsiz)*size))
	}
	return cv, true
}

// chansOK reports whether channels are laid out as chanHeader says.
var chansOK = checkChans()

func checkChans() bool {
	read := func(c chan uint64) (*chanHeader, []uint64) {
		h := *(**chanHeader)(unsafe.Pointer(&c))
		var got []uint64
		for i := uint(0); i < h.qcount && h.dataqsiz > 0; i++ {
			got = append(got, *(*uint64)(unsafe.Add(h.buf, uintptr((h.recvx+i)%h.dataqsiz)*8)))
		}
		return h, got
	}
	c := make(chan uint64, 4)
	c <- 10
	c <- 11
	c <- 12
	<-c
	c <- 13
	c <- 14 // wraps around: 11 12 13 14, the next to receive at index 1
	h, got := read(c)
	if h.qcount != 4 || h.dataqsiz != 4 || h.elemsize != 8 || h.closed != 0 || h.recvx != 1 || h.sendx != 1 {
		return false
	}
	if len(got) != 4 || got[0] != 11 || got[1] != 12 || got[2] != 13 || got[3] != 14 {
		return false
	}
	<-c
	close(c)
	h, got = read(c)
	return h.closed != 0 && h.qcount == 3 && h.recvx == 2 && len(got) == 3 && got[0] == 12 && got[2] == 14
}
