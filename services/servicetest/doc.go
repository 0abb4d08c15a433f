// Package servicetest is the test support the example systems under
// services share: building a registered system's config, driving an
// execution event by event, seeded random walks and their statistics,
// dead and transient states and critical transitions (Judge, on package
// critical), the replay of a hot cycle, and the determinism check. Its
// walks drive the simulator directly, independently of package walks;
// Judge hands the executions a test recorded to package critical, so the
// example systems' tests check the critical-transition search users get.
//
// Functions that can fail take a testing.TB and fail the test; MustStart
// and MustStep panic instead, for examples, which have none.
//
// # Walks
//
// A Walker runs random walks: each step is chosen by the simulator's own
// chooser, the safety properties are checked in every state, and a walk
// stops in the first live state (every liveness property holds). The
// example systems' tests grew three kinds of walk, kept as Walker options
// so that every test keeps its meaning:
//
//   - the zero Walker: a safety violation fails the test, a walk that
//     falls quiescent is stuck, and the start state is not checked
//     (philosophers, proposers, scheduler, failuredetector, storage);
//   - Quiescent: QuiescentCheck: a walk that falls quiescent is live if
//     the liveness properties hold where it stopped (transport, randtree);
//   - CheckStart, RecordUnsafe, QuiescentFails and ResetsOnly: the start
//     state is checked too, the first safety violation is recorded in the
//     Result and the walk goes on, falling quiescent fails the test, and
//     only resets count as failures (chord, pastry).
//
// With failures on, a live state counts only once the walk has had its
// share of failures (Walker.FailureBudget for a whole execution), so that
// a walk is not called live before the failures it will suffer. Walks
// from a state to see whether it recovers (Walker.From, Recovers,
// Recoveries, Profile, Judge) run with failures off.
//
// # Usage
//
// Building and driving an execution, keeping every state:
//
//	cfg := servicetest.Variant(t, chord.SystemName, false)
//	sc := servicetest.NewScript(t, servicetest.New(t, cfg, 1))
//	sc.Do("node 0 creates the ring", servicetest.App(0))
//	sc.Do("node 0 answers node 1", servicetest.Message(0, 1, "FindSucc"))
//	// sc.States[i] is the state after i steps, sc.Sim the execution
//
// Seeded random walks: every walk must turn live (the test fails
// otherwise), and a summary of the steps they took is logged:
//
//	w := servicetest.Walker{Quiescent: servicetest.QuiescentCheck}
//	w.ReachLive(t, cfg, servicetest.Batch{Walks: 200, Budget: 5000, Failures: true}, "fixed")
//
// or the first walk that gets stuck, and its critical transition:
//
//	seed, s, _ := w.FirstStuck(t, cfg, servicetest.Batch{Walks: 400, Budget: 5000, Failures: true})
//	judge := servicetest.Judge{WalkDepth: 5000, Dead: 50, Transient: 50, Search: 20, Seed: 1}
//	res := judge.Find(t, s) // critical.Find: res.Step, res.Event (C1, or the test fails)
//
// Whether each state of a scripted execution recovers (50 recovery walks
// to 3,000 steps), and the critical transition that follows, checked
// against Algorithm 3:
//
//	judge := servicetest.Judge{WalkDepth: 3000, Search: 50, Seed: 1}
//	probes := judge.Profile(t, sc.Sim, sc.Last(), func(int) int { return 50 })
//	crit := servicetest.CriticalOfProbes(probes)
//	judge.CheckCritical(t, sc.Sim, crit)
//
// A hot, fair cycle, run three times:
//
//	servicetest.Cycle{Steps: []servicetest.Match{...}}.Run(t, s, 3)
//
// In an example:
//
//	_, s := servicetest.MustStart(chord.SystemName, nil, engine.NewRandom(1))
//	fmt.Println(servicetest.MustStep(s, servicetest.App(0)))
package servicetest
