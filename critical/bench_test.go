package critical_test

import (
	"context"
	"testing"

	"github.com/macemc/macemc/critical"
	"github.com/macemc/macemc/sim/engine"
)

// benchConfig is the poison system with its critical transition at step
// 150, E of 20,000 steps, d_max = 20,000, k = 20, Workers = NumCPU.
func benchConfig(b *testing.B) critical.Config {
	return poisonConfig(b, poisonSys{apps: 200, poison: 150}, 20000, 20000)
}

// BenchmarkRecovers measures probes per second: "dead" probes state 150,
// where all k walks run their 19,850 steps; "transient" probes state 149,
// where the first walk recovers at once.
func BenchmarkRecovers(b *testing.B) {
	c := benchConfig(b)
	for _, bc := range []struct {
		name string
		i    int
		want bool
	}{{"dead", 150, false}, {"transient", 149, true}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				p, _, err := critical.Recovers(context.Background(), c, bc.i)
				if err != nil || p.Recovers != bc.want {
					b.Fatal(p, err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "probes/s")
		})
	}
}

// BenchmarkFind measures a whole search: d_max = 20,000, k = 20, critical
// transition at step 150.
func BenchmarkFind(b *testing.B) {
	c := benchConfig(b)
	var res critical.Result
	for b.Loop() {
		var err error
		res, err = critical.Find(context.Background(), c)
		if err != nil || res.Step != 150 || res.Condition != critical.C1 {
			b.Fatal(res.Step, res.Condition, err)
		}
	}
	b.ReportMetric(float64(len(res.Probes)), "probes")
	b.ReportMetric(float64(res.Transitions), "transitions")
	b.ReportMetric(float64(res.Transitions)/res.Elapsed.Seconds(), "transitions/s")
}

// BenchmarkConfirm measures the two confirmation samples of the bench
// config's critical transition (step 150): at 149 every walk recovers at
// once (the sample ends after ConfirmRecoveries), at 150 none does, 50
// walks of 19,850 steps.
func BenchmarkConfirm(b *testing.B) {
	c := benchConfig(b)
	var conf *critical.Confidence
	for b.Loop() {
		var err error
		if conf, err = critical.Confirm(context.Background(), c, 150); err != nil || conf.At.Recovered != 0 {
			b.Fatal(conf, err)
		}
	}
	b.ReportMetric(float64(conf.At.Transitions+conf.Before.Transitions)/(b.Elapsed().Seconds()/float64(b.N)), "transitions/s")
}

// BenchmarkMinimize measures ddmin on the flags system: six steps to
// three, d_max 400, k 20.
func BenchmarkMinimize(b *testing.B) {
	cfg := flagsConfig()
	s, err := engine.New(cfg, engine.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"n1", "a", "n2", "b", "n3", "app"} {
		for i, e := range s.Ready() {
			if name == "app" && e.Kind == engine.EvApp || e.Timer == name {
				if err := s.StepEvent(i); err != nil {
					b.Fatal(err)
				}
				break
			}
		}
	}
	c := critical.Config{Sim: cfg, Choices: s.ChoiceValues(), Steps: s.Steps(), WalkDepth: 400, Walks: 20, Seed: 1, ConfirmWalks: 500}
	var m *critical.Minimized
	for b.Loop() {
		if m, err = critical.Minimize(context.Background(), c, 6, critical.MinimizeConfig{}); err != nil || m.Steps != 3 {
			b.Fatal(m, err)
		}
	}
	b.ReportMetric(float64(m.Tests), "tests")
}
