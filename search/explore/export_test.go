package explore

// SetPathHook makes Run call f with the choices of every path's bounded
// part, in order.
func SetPathHook(c *Config, f func(choices []int32)) { c.pathHook = f }

// SetSpecHook makes Run tell f how many paths the coordinator followed
// from the speculating workers' records and how many it ran itself.
func SetSpecHook(c *Config, f func(hits, misses, ran, walked int64)) { c.specHook = f }

// SetGenHook makes Run tell f how many paths the speculation's generator
// ran (the paths up to the split depth, in order).
func SetGenHook(c *Config, f func(paths int64)) { c.genHook = f }

// PreChunk is how many records of paths that end above the split depth
// the generator hands over at a time.
const PreChunk = preChunk

// TasksPerWorker is how many tasks the generator may keep ahead of the
// coordinator per worker.
const TasksPerWorker = tasksPerWorker
