package explore

// SetPathHook makes Run call f with the choices of every path's bounded
// part, in order.
func SetPathHook(c *Config, f func(choices []int32)) { c.pathHook = f }

// SetSpecHook makes Run tell f how many paths the coordinator followed
// from the speculating workers' records and how many it ran itself.
func SetSpecHook(c *Config, f func(hits, misses, ran, walked int64)) { c.specHook = f }
