package search

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/macemc/macemc/sim"
)

// TestMergeRefusesAnotherBuild: a shard file says which build ran it; a
// merge refuses shards of one search run by different builds, and shards
// another build than its own ran (their records hold that build's state
// hashes and paths), with ErrShardBuild and both builds named.
func TestMergeRefusesAnotherBuild(t *testing.T) {
	dirs := schedulerShards(t)
	// rebuilt writes dir's shard file again as if the build named build
	// had run it.
	rebuilt := func(dir, build string) string {
		path := filepath.Join(dir, ShardFile)
		h, recs, err := ReadShardFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var sh shardSearch
		if err := json.Unmarshal(h, &sh); err != nil || sh.Build == "" {
			t.Fatalf("the shard's search %s (%v): no build", h, err)
		}
		sh.Build = build
		if h, err = json.Marshal(sh); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		if err := writeShardFile(filepath.Join(out, ShardFile), h, recs); err != nil {
			t.Fatal(err)
		}
		return out
	}
	for _, c := range []struct {
		name string
		dirs []string
		want string
	}{
		{"one shard of another build", []string{dirs[0], rebuilt(dirs[1], "a/b/c/other")}, "was written by build other, "},
		{"all shards of another build", []string{rebuilt(dirs[0], "a/b/c/other"), rebuilt(dirs[1], "a/b/c/other")}, "the shards were written by build other, this is build "},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Merge(context.Background(), c.dirs, MergeOptions{Out: t.TempDir()})
			if !errors.Is(err, ErrShardBuild) || !errors.Is(err, ErrInput) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Merge: %v, want ErrShardBuild saying %q", err, c.want)
			}
		})
	}
	if _, err := Merge(context.Background(), dirs, MergeOptions{Out: t.TempDir()}); err != nil {
		t.Errorf("the shards as written: %v", err)
	}
}

// TestMergeRoom: a merge whose shard files would take more memory than
// --max-memory (about mergeMemoryFactor times their bytes) is refused
// before it reads their records, with ErrOptions; one that fits merges.
func TestMergeRoom(t *testing.T) {
	dirs := schedulerShards(t)
	out := t.TempDir()
	_, err := Merge(context.Background(), dirs, MergeOptions{Out: out, MaxMemory: 1 << 10})
	if !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "merging these shards would need about") {
		t.Fatalf("a merge over its memory limit: %v", err)
	}
	if _, err := Merge(context.Background(), dirs, MergeOptions{Out: out}); err != nil {
		t.Fatalf("a merge within the default limit: %v", err)
	}
}

// schedulerShards runs the 2 shards of a small scheduler search and
// returns their result directories.
func schedulerShards(t *testing.T) []string {
	t.Helper()
	sys, err := sim.Lookup("scheduler")
	if err != nil {
		t.Fatal(err)
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	for i, dir := range dirs {
		if _, err := RunShard(context.Background(), sys, Options{Seed: 1, MaxPaths: 12, WalkDepth: 30, Out: dir}, i, 2); err != nil {
			t.Fatal(err)
		}
	}
	return dirs
}

// TestShardAndSearchReplaceEachOthersResults: a shard run in a directory
// removes a previous search's results (mdb showed the old violation as
// the shard's), a search removes a previous shard's records (a later
// merge of the directory read them), and a merge into one of its shards'
// directories keeps that shard's records, its input.
func TestShardAndSearchReplaceEachOthersResults(t *testing.T) {
	sys, err := sim.Lookup("scheduler")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	exists := func(name string) bool { _, err := os.Stat(filepath.Join(dir, name)); return err == nil }
	if _, err := Run(context.Background(), sys, Options{Seed: 1, WalkDepth: 30, Out: dir}); err != nil || !exists("error.trace") {
		t.Fatalf("the search: %v, error.trace %v", err, exists("error.trace"))
	}
	if _, err := RunShard(context.Background(), sys, Options{Seed: 1, MaxPaths: 12, WalkDepth: 30, Out: dir}, 0, 2); err != nil {
		t.Fatal(err)
	}
	if !exists(ShardFile) || exists("error.trace") || exists(ReportFile) {
		t.Errorf("after a shard: %s %v, error.trace %v, %s %v", ShardFile, exists(ShardFile), exists("error.trace"), ReportFile, exists(ReportFile))
	}
	other := t.TempDir()
	if _, err := RunShard(context.Background(), sys, Options{Seed: 1, MaxPaths: 12, WalkDepth: 30, Out: other}, 1, 2); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(context.Background(), []string{dir, other}, MergeOptions{Out: dir}); err != nil {
		t.Fatal(err)
	}
	if !exists(ShardFile) || !exists(ReportFile) {
		t.Errorf("after a merge into the shard's directory: %s %v, %s %v", ShardFile, exists(ShardFile), ReportFile, exists(ReportFile))
	}
	if _, err := Run(context.Background(), sys, Options{Seed: 1, WalkDepth: 30, Out: dir}); err != nil {
		t.Fatal(err)
	}
	if exists(ShardFile) {
		t.Errorf("a search left the shard's records")
	}
}
