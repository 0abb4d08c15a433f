package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
	"github.com/vmihailenco/msgpack/v5"
	"github.com/vmihailenco/msgpack/v5/msgpcode"

	"github.com/macemc/macemc/search/explore"
	"github.com/macemc/macemc/sim"
	"github.com/macemc/macemc/sim/engine"
	"github.com/macemc/macemc/sim/trace"
)

// ShardFile is the file a shard writes to its result directory.
const ShardFile = "shard.records"

// ErrShardFile marks a shard file that cannot be read: not a shard file,
// truncated, corrupt, of another version, or of another search than the
// other shards.
var ErrShardFile = errors.New("search: bad shard file")

// MaxShards bounds the number of shards of a search.
const MaxShards = 4096

// ShardSummary says what one shard of a search ran (RunShard).
type ShardSummary struct {
	Index, Count int
	// Rounds and Tasks say how much of the bounded search the shard ran;
	// Paths, Walks and Transitions count its paths, Violations those whose
	// record holds one (real executions of the system, though a merge
	// reports the first in the one process's order).
	Rounds, Tasks             int
	Paths, Walks, Transitions int64
	Violations                int
	// Stop says why the shard ended.
	Stop    explore.Stop
	Elapsed time.Duration
	// File is the shard file written.
	File string
}

// MarshalJSON writes the summary as `macemc search --shard --json` prints
// it, in report.json's style: snake-case keys, the stop reason as a word,
// seconds.
func (s *ShardSummary) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Index       int     `json:"shard"`
		Count       int     `json:"shards"`
		Rounds      int     `json:"rounds"`
		Tasks       int     `json:"tasks"`
		Paths       int64   `json:"paths"`
		Walks       int64   `json:"walks"`
		Transitions int64   `json:"transitions"`
		Violations  int     `json:"violations"`
		Stop        string  `json:"stop"`
		ElapsedS    float64 `json:"elapsed_s"`
		File        string  `json:"file"`
	}{s.Index, s.Count, s.Rounds, s.Tasks, s.Paths, s.Walks, s.Transitions, s.Violations, s.Stop.String(), s.Elapsed.Seconds(), s.File})
}

// ParseShard parses a shard given as "I/N" (shard I of N, from 0).
func ParseShard(s string) (index, count int, err error) {
	if _, err := fmt.Sscanf(s, "%d/%d", &index, &count); err != nil || fmt.Sprintf("%d/%d", index, count) != s {
		return 0, 0, &OptionError{Field: "Shard", Flag: "shard", Value: s, Range: fmt.Sprintf("I/N: shard I of N, 0 <= I < N <= %d", MaxShards)}
	}
	if count < 1 || count > MaxShards || index < 0 || index >= count {
		return 0, 0, &OptionError{Field: "Shard", Flag: "shard", Value: s, Range: fmt.Sprintf("I/N: shard I of N, 0 <= I < N <= %d", MaxShards)}
	}
	return index, count, nil
}

// RunShard runs shard index of count of the search Run would run with opts
// (explore.Shard: the round's tasks numbered index modulo count, with
// opts.Workers workers) and writes its records to opts.Out (ShardFile).
// Merge turns the result directories of all count shards into the report
// one process gives. A shard reports no finding of its own; it stops at
// the end of the subtree (task) in which it reaches opts.MaxViolations
// violating paths of its own (so it may count more), at the Time budget,
// or at its share of MaxPaths (twice MaxPaths over count, and 100 paths
// more: the merge runs itself what the shards left out). Lasso detection
// and the temperature method (they observe every walk) cannot be sharded.
func RunShard(ctx context.Context, sys *sim.System, opts Options, index, count int) (*ShardSummary, error) {
	if count < 1 || count > MaxShards || index < 0 || index >= count {
		return nil, &OptionError{Field: "Shard", Flag: "shard", Value: fmt.Sprintf("%d/%d", index, count), Range: fmt.Sprintf("I/N: shard I of N, 0 <= I < N <= %d", MaxShards)}
	}
	if opts.Lasso.On || opts.Lasso.Temperature > 0 {
		return nil, fmt.Errorf("%w: lasso detection and the temperature method observe every walk and cannot be sharded: run them in one process", ErrOptions)
	}
	if opts.Out == "" {
		return nil, &OptionError{Field: "Out", Flag: "out", Value: "", Range: "a directory for the shard's records"}
	}
	p, err := newPipeline(ctx, sys, opts)
	if err != nil {
		return nil, err
	}
	defer p.watchHeap(heapBound(EstimateMemory(p.cfg, &p.opts), &p.opts))()
	if err := CheckOut(p.opts.Out, ShardFile); err != nil {
		return nil, err
	}
	if err := p.lockOut(); err != nil {
		return nil, err
	}
	defer p.unlockOut()
	header, err := shardHeader(sys, &p.opts)
	if err != nil {
		return nil, err
	}
	ecfg, err := p.exploreConfig()
	if err != nil {
		return nil, err
	}
	// A previous run's results in the directory would be taken for this
	// shard's (mdb, report), and its records for a previous shard's.
	if err := p.cleanOut(); err != nil {
		return nil, err
	}
	p.progress(PhaseSearch, "searching shard %d of %d (strategy %s, seed %d)...", index, count, p.rep.Strategy, p.opts.Seed)
	recs, err := explore.Shard(p.ctx, ecfg, index, count)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	if p.memoryLimited() && recs.Stop == explore.StopInterrupted {
		recs.Stop = explore.StopMemory
	}
	sum := &ShardSummary{Index: index, Count: count, Rounds: len(recs.Rounds), Paths: recs.Paths, Walks: recs.Walks,
		Transitions: recs.Transitions, Violations: recs.Violations, Stop: recs.Stop, File: p.outPath(ShardFile)}
	for _, r := range recs.Rounds {
		sum.Tasks += len(r.Tasks)
	}
	p.progress(PhaseFiles, "writing %s...", ShardFile)
	if err := writeShardFile(sum.File, header, recs); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOutput, err)
	}
	sum.Elapsed = time.Since(p.start)
	return sum, nil
}

// MergeOptions say how to merge shards: where the report goes and how the
// merge runs; what was searched comes from the shard files.
type MergeOptions struct {
	// Out is the directory for the result files (as Options.Out).
	Out string
	// Workers run the walks of the paths the merge runs itself (0: all
	// cores); Command, MaxMemory and Progress are as in Options.
	Workers   int
	Command   string
	MaxMemory int64
	Progress  func(Progress)
}

// Merge reads the shard files of the result directories dirs (RunShard:
// shards 0 to N-1 of one search, each given once) and runs the search
// they are shards of, following their records: the report is the one a
// single process would give (the same verdict, the same counts, the
// first violation in the same order), with its critical transition,
// traces and logs, written to opts.Out. What the shards did not cover
// the merge runs itself.
func Merge(ctx context.Context, dirs []string, mo MergeOptions) (*Report, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no shard directories to merge", ErrInput)
	}
	var header []byte
	var sh shardSearch
	first := filepath.Join(dirs[0], ShardFile)
	// The shards' searches and builds first, from their files' first
	// bytes: shards that cannot be merged are refused before their
	// records (hundreds of megabytes) are read.
	for _, dir := range dirs {
		path := filepath.Join(dir, ShardFile)
		h, err := readShardHeader(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		var this shardSearch
		if err := json.Unmarshal(h, &this); err != nil {
			return nil, fmt.Errorf("%w: %w: %s: its search: %v", ErrInput, ErrShardFile, path, err)
		}
		if header != nil && (this.Build != sh.Build || this.HashVersion != sh.HashVersion) {
			return nil, fmt.Errorf("%w: %w: %s was written by %s, %s by %s: shards of one search run the same binary",
				ErrInput, ErrShardBuild, path, trace.BuildName(this.Build), first, trace.BuildName(sh.Build))
		}
		if header != nil && !bytes.Equal(h, header) {
			return nil, fmt.Errorf("%w: %w: %s is a shard of another search than %s%s", ErrInput, ErrShardFile, path, first, searchDiff(header, h))
		}
		header, sh = h, this
	}
	if sh.HashVersion != engine.HashVersion || sh.Build != "" && sh.Build != trace.BuildID() {
		return nil, fmt.Errorf("%w: %w: the shards were written by %s, this is %s: merge them with the binary that ran them (the records hold states as that build hashed them, and paths as its system ran them)",
			ErrInput, ErrShardBuild, trace.BuildName(sh.Build), trace.BuildName(trace.BuildID()))
	}
	sys, err := sim.Lookup(sh.System)
	if err != nil {
		return nil, fmt.Errorf("%w: the shards searched %w", ErrSystem, err)
	}
	if err := mergeRoom(dirs, mo.MaxMemory); err != nil {
		return nil, err
	}
	var shards []*explore.ShardRecords
	for _, dir := range dirs {
		path := filepath.Join(dir, ShardFile)
		// readShardHeader checked the file's sum: it is decoded now.
		h, recs, err := decodeShardFile(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInput, err)
		}
		if !bytes.Equal(h, header) {
			return nil, fmt.Errorf("%w: %w: %s is a shard of another search than %s", ErrInput, ErrShardFile, path, first)
		}
		shards = append(shards, recs)
	}
	opts := sh.Options
	opts.Out, opts.Workers, opts.Command, opts.MaxMemory, opts.Progress = mo.Out, mo.Workers, mo.Command, mo.MaxMemory, mo.Progress
	at := map[int]string{} // shard index: its directory
	for i, s := range shards {
		if s.Count != len(dirs) {
			given := fmt.Sprintf("%d directories", len(dirs))
			if len(dirs) == 1 {
				given = "1 directory"
			}
			return nil, fmt.Errorf("%w: %w: shard %d of %d, but %s given: merge the result directories of all %d shards%s", ErrInput, explore.ErrShard, s.Index, s.Count, given, s.Count, missingShards(shards))
		}
		if other, twice := at[s.Index]; twice {
			return nil, fmt.Errorf("%w: %w: shard %d of %d is given twice, in %s and %s: merge the result directories of all %d shards, each once",
				ErrInput, explore.ErrShard, s.Index, s.Count, other, dirs[i], s.Count)
		}
		at[s.Index] = dirs[i]
	}
	return run(ctx, sys, opts, shards)
}

// mergeMemoryFactor is how many times the bytes of its shard files a merge
// holds at its peak: the records decoded, then the tasks the search
// follows and the explored graph's states (measured on randtree,
// transport, pastry and chord, 100,000 paths in 2 shards: 96-132 MB of
// files, 550-630 MB of RSS).
const mergeMemoryFactor = 5

// mergeRoom refuses a merge whose shard files would take more memory
// than limit (0: DefaultMaxMemory; negative: no limit) before it reads
// them: the limit's watch begins with the search, after they are read.
func mergeRoom(dirs []string, limit int64) error {
	if limit == 0 {
		limit = DefaultMaxMemory
	}
	if limit < 0 {
		return nil
	}
	var files int64
	for _, dir := range dirs {
		if fi, err := os.Stat(filepath.Join(dir, ShardFile)); err == nil {
			files += fi.Size()
		}
	}
	if need := mulSat(files, mergeMemoryFactor); need > limit {
		return fmt.Errorf("%w: merging these shards would need about %s: their records take %s in %d files, and a merge holds about %d times that; "+
			"raise --max-memory (the merge needs more than one shard's search), or give the search a smaller budget (--max-paths, --time)",
			ErrOptions, FormatBytes(need), FormatBytes(files), len(dirs), mergeMemoryFactor)
	}
	return nil
}

// shardSearch is what a shard file says of its search: the system and the
// options that decide the result.
type shardSearch struct {
	System  string
	Options Options
	// Build is the binary that ran the shard (trace.BuildID), and
	// HashVersion its engine.HashVersion: the records are that build's.
	Build       string `json:",omitempty"`
	HashVersion int    `json:",omitempty"`
}

// missingShards names the shards of a split none of shards is, when they
// are all of one split (" (missing: shards 3 and 4)"), or says they are of
// several.
func missingShards(shards []*explore.ShardRecords) string {
	n := shards[0].Count
	have := map[int]bool{}
	for _, s := range shards {
		if s.Count != n {
			return fmt.Sprintf(" (these are shards of searches split %d ways and %d ways)", n, s.Count)
		}
		have[s.Index] = true
	}
	var missing []string
	for i := range n {
		if !have[i] {
			missing = append(missing, strconv.Itoa(i))
		}
	}
	switch {
	case len(missing) == 0:
		return ""
	case len(missing) == 1:
		return " (missing: shard " + missing[0] + ")"
	case len(missing) > 8:
		return fmt.Sprintf(" (missing: %d shards, %s, ...)", len(missing), strings.Join(missing[:8], ", "))
	}
	return " (missing: shards " + strings.Join(missing, ", ") + ")"
}

// searchDiff says how the searches of two shards differ (their headers,
// JSON): " (they differ in Options.Seed: 1 and 2)", naming up to three of
// the settings that differ; empty when it cannot tell.
func searchDiff(a, b []byte) string {
	var ma, mb any
	if json.Unmarshal(a, &ma) != nil || json.Unmarshal(b, &mb) != nil {
		return ""
	}
	var diffs []string
	var walk func(path string, x, y any)
	walk = func(path string, x, y any) {
		xm, xok := x.(map[string]any)
		ym, yok := y.(map[string]any)
		if xok && yok {
			keys := slices.AppendSeq(slices.Collect(maps.Keys(xm)), maps.Keys(ym))
			slices.Sort(keys)
			for _, k := range slices.Compact(keys) {
				walk(strings.TrimPrefix(path+"."+k, "."), xm[k], ym[k])
			}
			return
		}
		xb, _ := json.Marshal(x)
		yb, _ := json.Marshal(y)
		if !bytes.Equal(xb, yb) {
			diffs = append(diffs, fmt.Sprintf("%s: %s and %s", flagOfPath(path), xb, yb))
		}
	}
	walk("", ma, mb)
	if len(diffs) == 0 {
		return ""
	}
	if len(diffs) > 3 {
		diffs = append(diffs[:3], fmt.Sprintf("%d more", len(diffs)-3))
	}
	return " (they differ in " + strings.Join(diffs, "; ") + ")"
}

// flagOfPath names the command-line flag of a field of a shard's search
// (searchDiff's paths: "Options.Seed", "Options.Params.fixed"), or the
// path when it has none.
func flagOfPath(path string) string {
	field, ok := strings.CutPrefix(path, "Options.")
	if !ok {
		return path
	}
	if name, ok := strings.CutPrefix(field, "Params."); ok {
		return "--param " + name
	}
	if name, ok := strings.CutPrefix(field, "StrategyParams."); ok {
		return "the strategy's option " + name
	}
	for _, b := range bounds {
		if b.field == field {
			return "--" + b.flag
		}
	}
	for flag, f := range flagFields {
		if f == field {
			return "--" + flag
		}
	}
	return path
}

// ErrShardBuild marks shards that another build than the merging one
// wrote, or shards of one search written by different builds.
var ErrShardBuild = errors.New("search: shards of another build")

// shardHeader returns the description of the search of a shard: the
// system and the options, without those that do not change the result
// (where it is written, the workers, the memory limit).
func shardHeader(sys *sim.System, o *Options) ([]byte, error) {
	c := *o
	c.Out, c.Workers, c.Command, c.MaxMemory, c.Progress = "", 0, "", 0, nil
	b, err := json.Marshal(shardSearch{System: sys.Name, Options: c, Build: trace.BuildID(), HashVersion: engine.HashVersion})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrOptions, err)
	}
	return b, nil
}

// The shard file: magic, version, the body's length, the msgpack body and
// its xxhash checksum. The body is an array: the search (JSON text, as
// shardHeader makes it), the shard's index and count, why it stopped, its
// counts and its rounds; each round [round, depth, tasks], each task [ord,
// prefix, records], each record an array of its fields (writeRecord). Every length
// is checked against the bytes left before anything is allocated.
const (
	shardMagic   = "MACEMCSH"
	shardVersion = 3
	shardHead    = len(shardMagic) + 1 + 8
	// maxShardBody bounds a shard file's body.
	maxShardBody = 1 << 36
	// maxHeader bounds the search's description in it.
	maxHeader = 1 << 20
)

func writeShardFile(path string, header []byte, recs *explore.ShardRecords) error {
	return trace.WriteAtomic(path, func(w io.Writer) error {
		var body bytes.Buffer
		e := msgpack.NewEncoder(&body)
		if err := encodeShard(e, header, recs); err != nil {
			return err
		}
		var head [shardHead]byte
		copy(head[:], shardMagic)
		head[len(shardMagic)] = shardVersion
		binary.LittleEndian.PutUint64(head[len(shardMagic)+1:], uint64(body.Len()))
		if _, err := w.Write(head[:]); err != nil {
			return err
		}
		if _, err := w.Write(body.Bytes()); err != nil {
			return err
		}
		_, err := w.Write(binary.LittleEndian.AppendUint64(nil, xxhash.Sum64(body.Bytes())))
		return err
	})
}

func encodeShard(e *msgpack.Encoder, header []byte, recs *explore.ShardRecords) error {
	enc := func(vs ...any) error {
		for _, v := range vs {
			if err := e.Encode(v); err != nil {
				return err
			}
		}
		return nil
	}
	given := map[uint64]struct{}{}
	if err := e.EncodeArrayLen(9); err != nil {
		return err
	}
	if err := enc(string(header), recs.Index, recs.Count, recs.Stop.String(), recs.Paths, recs.Walks, recs.Transitions, recs.Violations); err != nil {
		return err
	}
	if err := e.EncodeArrayLen(len(recs.Rounds)); err != nil {
		return err
	}
	for _, r := range recs.Rounds {
		if err := e.EncodeArrayLen(3); err != nil {
			return err
		}
		if err := enc(r.Round, r.Depth); err != nil {
			return err
		}
		if err := e.EncodeArrayLen(len(r.Tasks)); err != nil {
			return err
		}
		for _, t := range r.Tasks {
			if err := e.EncodeArrayLen(3); err != nil {
				return err
			}
			if err := enc(t.Ord, t.Prefix); err != nil {
				return err
			}
			if err := e.EncodeArrayLen(len(t.Records)); err != nil {
				return err
			}
			for i := range t.Records {
				if err := writeRecord(e, &t.Records[i], given); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// recordFields is the length of a record's array, graphStepFields that of
// a graph step's.
const (
	recordFields    = 14
	graphStepFields = 6
)

// writeRecord writes record r; given holds the states whose graph info
// (hot, units) an earlier record gave, which it leaves out (nil units:
// explore.GraphStep.Repeat), and it adds those it gives.
func writeRecord(e *msgpack.Encoder, r *explore.Record, given map[uint64]struct{}) error {
	ch := make([]byte, 0, 9*len(r.Choices))
	for _, c := range r.Choices {
		ch = append(ch, byte(c.Kind))
		ch = binary.LittleEndian.AppendUint32(ch, uint32(c.N))
		ch = binary.LittleEndian.AppendUint32(ch, uint32(c.Value))
	}
	hs := make([]byte, 0, 8*len(r.Hashes))
	for _, h := range r.Hashes {
		hs = binary.LittleEndian.AppendUint64(hs, h)
	}
	if err := e.EncodeArrayLen(recordFields); err != nil {
		return err
	}
	for _, v := range []any{ch, r.Starts, r.Begun, r.Checked, hs} {
		if err := e.Encode(v); err != nil {
			return err
		}
	}
	if err := e.EncodeArrayLen(len(r.Graph)); err != nil {
		return err
	}
	for i, g := range r.Graph {
		if err := e.EncodeArrayLen(graphStepFields); err != nil {
			return err
		}
		units := g.Units
		if units == nil {
			units = []uint64{} // nil is a repeat's
		}
		if i < len(r.Hashes) {
			if _, ok := given[r.Hashes[i]]; ok {
				units = nil
			} else {
				given[r.Hashes[i]] = struct{}{}
			}
		}
		for _, v := range []any{g.Key, g.Hot, units, g.Unit, g.Failure, g.Node} {
			if err := e.Encode(v); err != nil {
				return err
			}
		}
	}
	for _, v := range []any{r.End.Steps, int(r.End.Reason), r.Walked, r.Cycle, r.Transitions} {
		if err := e.Encode(v); err != nil {
			return err
		}
	}
	if r.Judged == nil {
		if err := e.EncodeNil(); err != nil {
			return err
		}
	} else {
		if err := e.EncodeArrayLen(3); err != nil {
			return err
		}
		for _, v := range []any{r.Judged.Key, int(r.Judged.Outcome), r.Judged.Property} {
			if err := e.Encode(v); err != nil {
				return err
			}
		}
	}
	return e.Encode(r.Violation)
}

// ReadShardFile reads a shard file: the search it belongs to (its
// description, which the other shards of the search share byte for byte)
// and its records. It reads regular files only, and checks every length
// the file declares before allocating.
func ReadShardFile(path string) ([]byte, *explore.ShardRecords, error) {
	if err := checkShardSum(path); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return decodeShardFile(path)
}

// decodeShardFile is ReadShardFile after checkShardSum: it decodes the
// file as it reads it, and checks the checksum of what it decoded.
func decodeShardFile(path string) ([]byte, *explore.ShardRecords, error) {
	f, err := trace.OpenRegular(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	// Decoded from the file as it is read (checkShardSum has read it
	// whole once): the merge holds the records, not their bytes too.
	br := bufio.NewReaderSize(f, 1<<16)
	head := make([]byte, shardHead)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, nil, fmt.Errorf("%s: %w: truncated: %v", path, ErrShardFile, err)
	}
	n, err := checkShardHead(head, -1)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	cr := &countingReader{r: br, left: int(n), sum: xxhash.New()}
	h, recs, err := decodeShardBody(cr)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	// The bytes decoded are the bytes checked, should the file have
	// changed since checkShardSum read it.
	sum := make([]byte, 8)
	if _, err := io.ReadFull(br, sum); err != nil || cr.sum.Sum64() != binary.LittleEndian.Uint64(sum) {
		return nil, nil, fmt.Errorf("%s: %w: checksum mismatch", path, ErrShardFile)
	}
	return h, recs, nil
}

// readShardHeader reads the description of the search of a shard file
// (the first field of its body; ReadShardFile reads and checks the rest),
// in constant memory.
func readShardHeader(path string) ([]byte, error) {
	if err := checkShardSum(path); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	f, err := trace.OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	head := make([]byte, shardHead)
	if _, err := io.ReadFull(br, head); err != nil {
		return readShardError(path)
	}
	n, err := checkShardHead(head, -1)
	if err != nil {
		return readShardError(path)
	}
	cr := &countingReader{r: br, left: int(n), sum: xxhash.New()}
	sd := &shardDecoder{d: msgpack.NewDecoder(cr), r: cr}
	if err := sd.want(9, "shard"); err != nil {
		return nil, fmt.Errorf("%s: %w: %v", path, ErrShardFile, err)
	}
	h, err := sd.d.DecodeString()
	if err != nil || len(h) > maxHeader {
		return readShardError(path)
	}
	return []byte(h), nil
}

// readShardError is ReadShardFile's error for a file whose header
// readShardHeader could not read (a short or foreign file: refused at its
// first bytes).
func readShardError(path string) ([]byte, error) {
	if _, _, err := ReadShardFile(path); err != nil {
		return nil, err
	}
	return nil, fmt.Errorf("%s: %w: its search cannot be read", path, ErrShardFile)
}

// countingReader reads a shard body from r, of which left bytes remain:
// the decoder checks every declared length against them. It is a byte
// scanner, so that msgpack reads it without a buffer of its own (whose
// read-ahead would make left understate what remains).
//
// It also hashes the bytes as they are consumed (sum): a byte read again
// after UnreadByte is hashed once.
type countingReader struct {
	r      *bufio.Reader
	left   int
	sum    *xxhash.Digest
	unread bool    // the next byte was read and hashed before
	one    [1]byte // a byte to hash
}

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	n, err := c.r.Read(p[:min(len(p), c.left)])
	c.left -= n
	if hashed := p[:n]; n > 0 {
		if c.unread {
			hashed, c.unread = hashed[1:], false
		}
		c.sum.Write(hashed)
	}
	return n, err
}

func (c *countingReader) ReadByte() (byte, error) {
	if c.left <= 0 {
		return 0, io.EOF
	}
	b, err := c.r.ReadByte()
	if err == nil {
		c.left--
		if c.unread {
			c.unread = false
		} else {
			c.one[0] = b
			c.sum.Write(c.one[:])
		}
	}
	return b, err
}

func (c *countingReader) UnreadByte() error {
	err := c.r.UnreadByte()
	if err == nil {
		c.left++
		c.unread = true
	}
	return err
}

// Len is how many bytes of the body remain.
func (c *countingReader) Len() int { return c.left }

// checkShardSum checks a shard file's header and checksum by streaming it,
// before ReadShardFile holds it in memory: a corrupt file of gigabytes
// (or one whose header declares gigabytes) is refused in constant memory.
// What it cannot open, or what is not a regular file, is left to
// ReadRegular to report.
func checkShardSum(path string) error {
	fi, err := os.Stat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head := make([]byte, shardHead)
	if _, err := io.ReadFull(f, head); err != nil || string(head[:len(shardMagic)]) != shardMagic || head[len(shardMagic)] != shardVersion {
		return nil // UnmarshalShard says what is wrong with a short or foreign file
	}
	n := binary.LittleEndian.Uint64(head[len(shardMagic)+1:])
	if size := fi.Size() - int64(shardHead) - 8; n > maxShardBody || size < 0 || n != uint64(size) {
		return fmt.Errorf("%w: truncated or corrupt: body length %d in %d bytes", ErrShardFile, n, fi.Size())
	}
	h := xxhash.New()
	if _, err := io.CopyN(h, f, int64(n)); err != nil {
		return fmt.Errorf("%w: %w", ErrShardFile, err)
	}
	sum := make([]byte, 8)
	if _, err := io.ReadFull(f, sum); err != nil || h.Sum64() != binary.LittleEndian.Uint64(sum) {
		return fmt.Errorf("%w: checksum mismatch", ErrShardFile)
	}
	return nil
}

// UnmarshalShard decodes the bytes of a shard file (see ReadShardFile).
func UnmarshalShard(data []byte) ([]byte, *explore.ShardRecords, error) {
	if len(data) < len(shardMagic) || string(data[:len(shardMagic)]) != shardMagic {
		return nil, nil, fmt.Errorf("%w: not a shard file", ErrShardFile)
	}
	if len(data) < shardHead {
		return nil, nil, fmt.Errorf("%w: truncated: %d bytes, the header needs %d", ErrShardFile, len(data), shardHead)
	}
	n, err := checkShardHead(data[:shardHead], int64(len(data)))
	if err != nil {
		return nil, nil, err
	}
	body := data[shardHead : shardHead+int(n)]
	if xxhash.Sum64(body) != binary.LittleEndian.Uint64(data[shardHead+int(n):]) {
		return nil, nil, fmt.Errorf("%w: checksum mismatch", ErrShardFile)
	}
	return decodeShardBody(bytes.NewReader(body))
}

// checkShardHead checks a shard file's header (its first shardHead bytes)
// and returns the body's length; size is the file's, or -1 when the
// caller has checked it (checkShardSum).
func checkShardHead(head []byte, size int64) (uint64, error) {
	if string(head[:len(shardMagic)]) != shardMagic {
		return 0, fmt.Errorf("%w: not a shard file", ErrShardFile)
	}
	if v := head[len(shardMagic)]; v != shardVersion {
		return 0, fmt.Errorf("%w: version %d (this macemc reads %d)", ErrShardFile, v, shardVersion)
	}
	n := binary.LittleEndian.Uint64(head[len(shardMagic)+1 : shardHead])
	if n > maxShardBody || size >= 0 && (size < int64(shardHead)+8 || n != uint64(size-int64(shardHead)-8)) {
		return 0, fmt.Errorf("%w: truncated or corrupt: body length %d in %d bytes", ErrShardFile, n, size)
	}
	return n, nil
}

// bodyReader is what a shard body is decoded from: a byte scanner that
// knows how many bytes remain.
type bodyReader interface {
	io.Reader
	io.ByteScanner
	Len() int
}

// decodeShardBody decodes a shard body whose checksum was checked.
func decodeShardBody(r bodyReader) ([]byte, *explore.ShardRecords, error) {
	sd := &shardDecoder{d: msgpack.NewDecoder(r), r: r, given: map[uint64]struct{}{}}
	h, recs, err := sd.shard()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrShardFile, err)
	}
	if r.Len() != 0 {
		return nil, nil, fmt.Errorf("%w: %d bytes after the records", ErrShardFile, r.Len())
	}
	return h, recs, nil
}

// shardDecoder decodes a shard body, checking every declared length
// against the bytes left (an array of n elements needs n bytes at least).
type shardDecoder struct {
	d *msgpack.Decoder
	r bodyReader
	// given holds the states whose graph info a record gave.
	given map[uint64]struct{}
}

func (sd *shardDecoder) array(min int, what string) (int, error) {
	n, err := sd.d.DecodeArrayLen()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if n == -1 {
		return 0, nil // nil
	}
	if n < 0 || n > sd.r.Len()/min {
		return 0, fmt.Errorf("%s: %d elements declared, %d bytes left", what, n, sd.r.Len())
	}
	return n, nil
}

// want checks an array of exactly n elements.
func (sd *shardDecoder) want(n int, what string) error {
	m, err := sd.array(1, what)
	if err == nil && m != n {
		err = fmt.Errorf("%s: %d fields, want %d", what, m, n)
	}
	return err
}

func (sd *shardDecoder) bin(what string) ([]byte, error) {
	n, err := sd.d.DecodeBytesLen()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if n == -1 {
		return nil, nil // nil
	}
	if n < 0 || n > sd.r.Len() {
		return nil, fmt.Errorf("%s: %d bytes declared, %d left", what, n, sd.r.Len())
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(sd.r, b); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

func (sd *shardDecoder) int(what string, lo, hi int64) (int64, error) {
	v, err := sd.d.DecodeInt64()
	if err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%s: %d, want %d to %d", what, v, lo, hi)
	}
	return v, nil
}

func (sd *shardDecoder) int32s(what string) ([]int32, error) {
	return decodeSlice(sd, what, sd.d.DecodeInt32)
}

// nilNext reports whether the next value is nil, and decodes it if so.
func (sd *shardDecoder) nilNext() (bool, error) {
	c, err := sd.d.PeekCode()
	if err != nil || c != msgpcode.Nil {
		return false, err
	}
	return true, sd.d.DecodeNil()
}

func (sd *shardDecoder) uint64s(what string) ([]uint64, error) {
	return decodeSlice(sd, what, sd.d.DecodeUint64)
}

// decodeSlice decodes an array of values that take a byte at least each.
func decodeSlice[T any](sd *shardDecoder, what string, one func() (T, error)) ([]T, error) {
	n, err := sd.array(1, what)
	if err != nil {
		return nil, err
	}
	out := make([]T, n)
	for i := range out {
		if out[i], err = one(); err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
	}
	return out, nil
}

const maxInt = 1<<63 - 1

func (sd *shardDecoder) shard() ([]byte, *explore.ShardRecords, error) {
	if err := sd.want(9, "shard"); err != nil {
		return nil, nil, err
	}
	h, err := sd.d.DecodeString()
	if err != nil {
		return nil, nil, fmt.Errorf("search: %w", err)
	}
	if len(h) > maxHeader {
		return nil, nil, fmt.Errorf("search: %d bytes, at most %d", len(h), maxHeader)
	}
	recs := &explore.ShardRecords{}
	var v [6]int64
	for i, f := range []struct {
		what   string
		lo, hi int64
	}{{"index", 0, MaxShards - 1}, {"count", 1, MaxShards}} {
		if v[i], err = sd.int(f.what, f.lo, f.hi); err != nil {
			return nil, nil, err
		}
	}
	recs.Index, recs.Count = int(v[0]), int(v[1])
	if recs.Index >= recs.Count {
		return nil, nil, fmt.Errorf("shard %d of %d", recs.Index, recs.Count)
	}
	stop, err := sd.d.DecodeString()
	if err != nil {
		return nil, nil, fmt.Errorf("stop: %w", err)
	}
	var ok bool
	if recs.Stop, ok = explore.ParseStop(stop); !ok {
		return nil, nil, fmt.Errorf("stop %q", stop)
	}
	for i, what := range []string{"paths", "walks", "transitions", "violations"} {
		if v[i], err = sd.int(what, 0, maxInt); err != nil {
			return nil, nil, err
		}
	}
	recs.Paths, recs.Walks, recs.Transitions, recs.Violations = v[0], v[1], v[2], int(v[3])
	nr, err := sd.array(4, "rounds")
	if err != nil {
		return nil, nil, err
	}
	for range nr {
		if err := sd.want(3, "round"); err != nil {
			return nil, nil, err
		}
		var r explore.ShardRound
		if v[0], err = sd.int("round", 1, MaxDepthBound); err != nil {
			return nil, nil, err
		}
		if v[1], err = sd.int("depth", 1, MaxDepthBound); err != nil {
			return nil, nil, err
		}
		r.Round, r.Depth = int(v[0]), int(v[1])
		nt, err := sd.array(3, "tasks")
		if err != nil {
			return nil, nil, err
		}
		for range nt {
			if err := sd.want(3, "task"); err != nil {
				return nil, nil, err
			}
			var t explore.ShardTask
			if t.Ord, err = sd.int("task", 1, maxInt); err != nil {
				return nil, nil, err
			}
			if t.Prefix, err = sd.d.DecodeBool(); err != nil {
				return nil, nil, err
			}
			nrec, err := sd.array(recordFields, "records")
			if err != nil {
				return nil, nil, err
			}
			for range nrec {
				rec, err := sd.record()
				if err != nil {
					return nil, nil, fmt.Errorf("round %d, task %d, record %d: %w", r.Round, t.Ord, len(t.Records), err)
				}
				t.Records = append(t.Records, rec)
			}
			r.Tasks = append(r.Tasks, t)
		}
		recs.Rounds = append(recs.Rounds, r)
	}
	return []byte(h), recs, nil
}

func (sd *shardDecoder) record() (explore.Record, error) {
	var r explore.Record
	if err := sd.want(recordFields, "record"); err != nil {
		return r, err
	}
	ch, err := sd.bin("choices")
	if err != nil {
		return r, err
	}
	if len(ch)%9 != 0 {
		return r, fmt.Errorf("choices: %d bytes", len(ch))
	}
	r.Choices = make([]engine.Choice, len(ch)/9)
	for i := range r.Choices {
		c := ch[9*i:]
		r.Choices[i] = engine.Choice{Kind: engine.ChoiceKind(c[0]), N: int32(binary.LittleEndian.Uint32(c[1:])), Value: int32(binary.LittleEndian.Uint32(c[5:]))}
		if r.Choices[i].N < 1 || r.Choices[i].Value < 0 || r.Choices[i].Value >= r.Choices[i].N {
			return r, fmt.Errorf("choice %d: %d of %d", i, r.Choices[i].Value, r.Choices[i].N)
		}
	}
	if r.Starts, err = sd.int32s("starts"); err != nil {
		return r, err
	}
	var v int64
	if v, err = sd.int("begun", 0, int64(len(r.Starts))); err != nil {
		return r, err
	}
	r.Begun = int(v)
	if v, err = sd.int("checked", 0, int64(r.Begun)); err != nil {
		return r, err
	}
	r.Checked = int(v)
	for i, st := range r.Starts {
		if st < 0 || int(st) >= len(r.Choices) || i > 0 && st <= r.Starts[i-1] {
			return r, fmt.Errorf("step %d starts at choice %d of %d", i+1, st, len(r.Choices))
		}
	}
	hs, err := sd.bin("hashes")
	if err != nil {
		return r, err
	}
	if len(hs)%8 != 0 || len(hs) != 0 && len(hs)/8 != r.Checked {
		return r, fmt.Errorf("hashes: %d bytes for %d states", len(hs), r.Checked)
	}
	for i := 0; i < len(hs); i += 8 {
		r.Hashes = append(r.Hashes, binary.LittleEndian.Uint64(hs[i:]))
	}
	ng, err := sd.array(6, "graph")
	if err != nil {
		return r, err
	}
	if ng != 0 && ng != r.Checked {
		return r, fmt.Errorf("graph: %d steps for %d states", ng, r.Checked)
	}
	for i := range ng {
		if err := sd.want(graphStepFields, "graph step"); err != nil {
			return r, err
		}
		var g explore.GraphStep
		if g.Key, err = sd.d.DecodeUint64(); err != nil {
			return r, err
		}
		if g.Hot, err = sd.d.DecodeBool(); err != nil {
			return r, err
		}
		if g.Repeat, err = sd.nilNext(); err != nil {
			return r, err
		}
		if !g.Repeat {
			if g.Units, err = sd.uint64s("units"); err != nil {
				return r, err
			}
		}
		if g.Unit, err = sd.d.DecodeUint64(); err != nil {
			return r, err
		}
		if g.Failure, err = sd.d.DecodeBool(); err != nil {
			return r, err
		}
		if v, err = sd.int("graph step's node", 0, sim.MaxNodes-1); err != nil {
			return r, err
		}
		g.Node = int(v)
		// A state's info comes with its first record in the shard, and
		// only then (what a writer would write again is dropped: the
		// merge keeps the first).
		if i < len(r.Hashes) {
			_, seen := sd.given[r.Hashes[i]]
			switch {
			case g.Repeat && !seen:
				return r, fmt.Errorf("graph step %d: its state's info is left to an earlier record, and none gave it", i)
			case seen:
				g.Repeat, g.Units = true, nil
			default:
				sd.given[r.Hashes[i]] = struct{}{}
			}
		} else if g.Repeat {
			return r, fmt.Errorf("graph step %d: its info is left to an earlier record, but it has no hash", i)
		}
		r.Graph = append(r.Graph, g)
	}
	if v, err = sd.int("end", 0, MaxDepthBound); err != nil {
		return r, err
	}
	r.End.Steps = int(v)
	if v, err = sd.int("end reason", int64(explore.EndDepth), int64(explore.EndBlocked)); err != nil {
		return r, err
	}
	r.End.Reason = explore.EndReason(v)
	if r.Walked, err = sd.d.DecodeBool(); err != nil {
		return r, err
	}
	if r.Cycle, err = sd.d.DecodeBool(); err != nil {
		return r, err
	}
	if r.Transitions, err = sd.int("transitions", 0, maxInt); err != nil {
		return r, err
	}
	if r.Judged, err = sd.judgement(); err != nil {
		return r, err
	}
	r.Violation, err = sd.d.DecodeBool()
	return r, err
}

// judgement decodes a path check's verdict, or nil.
func (sd *shardDecoder) judgement() (*explore.Judgement, error) {
	n, err := sd.d.DecodeArrayLen()
	if err != nil || n == -1 {
		return nil, err
	}
	if n != 3 {
		return nil, fmt.Errorf("judgement: %d fields, want 3", n)
	}
	jd := &explore.Judgement{}
	if jd.Key, err = sd.d.DecodeUint64(); err != nil {
		return nil, err
	}
	v, err := sd.int("judgement", int64(explore.CheckOK), int64(explore.CheckFailed))
	if err != nil {
		return nil, err
	}
	jd.Outcome = explore.CheckOutcome(v)
	if jd.Property, err = sd.d.DecodeString(); err != nil {
		return nil, err
	}
	return jd, nil
}

// WriteText describes what the shard ran and how to merge it; tool is
// the program name for the merge command.
func (s *ShardSummary) WriteText(w io.Writer, tool string) error {
	merge := fmt.Sprintf("merge the %d shards' directories into the search's report:\n  %s merge DIR0 ... DIR%d --out DIR", s.Count, tool, s.Count-1)
	if s.Count == 1 {
		merge = fmt.Sprintf("merge the shard's directory into the search's report:\n  %s merge DIR0 --out DIR", tool)
	}
	_, err := fmt.Fprintf(w, "shard %d of %d: %s, %s, %s, %s, %s, %s in %.2fs; stopped: %s\nrecords: %s\n%s\n",
		s.Index, s.Count, plural(s.Rounds, "round"), plural(s.Tasks, "task"), plural(s.Paths, "path"), plural(s.Walks, "walk"), plural(s.Transitions, "transition"),
		plural(s.Violations, "violating path"), s.Elapsed.Seconds(), s.Stop, s.File, merge)
	return err
}
