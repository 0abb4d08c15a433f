//go:build go1.27

package engine

import (
	"reflect"
	"unsafe"
)

// smallLayout: maps are read with reflect.MapIter on a Go release whose
// map layout smallmap.go has not been checked against.
func smallLayout(reflect.Type) (slot, elemOff uintptr, ok bool) { return 0, 0, false }

func mapLen(unsafe.Pointer) (int, bool) { return 0, false }

func smallGroup(unsafe.Pointer, int) (unsafe.Pointer, uint64) { return nil, 0 }

func slotAt(unsafe.Pointer, uint64, uintptr) unsafe.Pointer { return nil }
