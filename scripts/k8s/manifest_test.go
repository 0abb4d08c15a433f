// Package k8s checks the Kubernetes manifests beside it against the
// Kubernetes API's own types (k8s.io/api), strictly: an unknown or
// misspelt field, or a value of the wrong type, fails, as kubectl's
// server-side validation would. It also checks that the manifests agree
// with each other and with macemc's sharding: an Indexed Job whose pods
// each run `search --shard $(JOB_COMPLETION_INDEX)/N` into their own
// directory of a shared volume, N the Job's completions, and a merge Job
// that reads the N directories.
package k8s

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// docs splits a manifest into its YAML documents.
func docs(t *testing.T, file string) [][]byte {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]byte
	for _, d := range bytes.Split(data, []byte("\n---\n")) {
		if len(bytes.TrimSpace(d)) > 0 {
			out = append(out, d)
		}
	}
	return out
}

// decode decodes one document strictly into the type its kind names.
func decode(t *testing.T, doc []byte) any {
	t.Helper()
	var meta struct{ Kind, APIVersion string }
	if err := yaml.Unmarshal(doc, &meta); err != nil {
		t.Fatal(err)
	}
	var obj any
	switch meta.APIVersion + " " + meta.Kind {
	case "batch/v1 Job":
		obj = &batchv1.Job{}
	case "v1 PersistentVolumeClaim":
		obj = &corev1.PersistentVolumeClaim{}
	default:
		t.Fatalf("unexpected %s %s", meta.APIVersion, meta.Kind)
	}
	if err := yaml.UnmarshalStrict(doc, obj); err != nil {
		t.Fatalf("%s: %v", meta.Kind, err)
	}
	return obj
}

// container returns the Job's one container and checks it mounts the
// claim at /results.
func container(t *testing.T, j *batchv1.Job, claim string) corev1.Container {
	t.Helper()
	spec := j.Spec.Template.Spec
	if len(spec.Containers) != 1 || spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Fatalf("job %s: %d containers, restart policy %q", j.Name, len(spec.Containers), spec.RestartPolicy)
	}
	c := spec.Containers[0]
	if len(spec.Volumes) != 1 || spec.Volumes[0].PersistentVolumeClaim == nil || spec.Volumes[0].PersistentVolumeClaim.ClaimName != claim ||
		len(c.VolumeMounts) != 1 || c.VolumeMounts[0].Name != spec.Volumes[0].Name || c.VolumeMounts[0].MountPath != "/results" {
		t.Fatalf("job %s: the results volume is not claim %s mounted at /results", j.Name, claim)
	}
	return c
}

// flag returns the value after name in args.
func flag(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

func TestManifests(t *testing.T) {
	sd := docs(t, "shards.yaml")
	if len(sd) != 2 {
		t.Fatalf("shards.yaml: %d documents, want the claim and the job", len(sd))
	}
	pvc := decode(t, sd[0]).(*corev1.PersistentVolumeClaim)
	if !slices.Contains(pvc.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("the claim must be ReadWriteMany: the shards' pods and the merge share it")
	}
	shards := decode(t, sd[1]).(*batchv1.Job)
	s := shards.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion || s.Completions == nil || s.Parallelism == nil {
		t.Fatalf("the shards' job must be Indexed with completions and parallelism set")
	}
	n := int(*s.Completions)
	if int(*s.Parallelism) != n {
		t.Errorf("parallelism %d, completions %d: run every shard at once", *s.Parallelism, n)
	}
	c := container(t, shards, pvc.Name)
	if c.Args[0] != "search" || flag(c.Args, "--shard") != fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n) ||
		flag(c.Args, "--out") != "/results/shard-$(JOB_COMPLETION_INDEX)" {
		t.Errorf("the shards run %v: want search ... --shard $(JOB_COMPLETION_INDEX)/%d --out /results/shard-$(JOB_COMPLETION_INDEX)", c.Args, n)
	}

	md := docs(t, "merge.yaml")
	if len(md) != 1 {
		t.Fatalf("merge.yaml: %d documents", len(md))
	}
	merge := decode(t, md[0]).(*batchv1.Job)
	mc := container(t, merge, pvc.Name)
	if mc.Image != c.Image {
		t.Errorf("the merge runs image %s, the shards %s: the merge must know the same systems", mc.Image, c.Image)
	}
	var dirs []string
	for _, a := range mc.Args[1:] {
		if strings.HasPrefix(a, "--") {
			break
		}
		dirs = append(dirs, a)
	}
	var want []string
	for i := range n {
		want = append(want, fmt.Sprintf("/results/shard-%d", i))
	}
	if mc.Args[0] != "merge" || !slices.Equal(dirs, want) || flag(mc.Args, "--out") == "" {
		t.Errorf("the merge runs %v: want merge %s --out DIR", mc.Args, strings.Join(want, " "))
	}
	// A found bug must not fail the pod: the Job would run the merge again.
	if !slices.Contains(mc.Args, "--exit-zero") {
		t.Errorf("the merge runs %v without --exit-zero: its exit 1 on a found bug counts as a failed pod", mc.Args)
	}
}
