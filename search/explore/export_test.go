package explore

// SetPathHook makes Run call f with the choices of every path's bounded
// part, in order.
func SetPathHook(c *Config, f func(choices []int32)) { c.pathHook = f }
