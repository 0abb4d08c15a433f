package mdb

// SetGraphWindow makes g replay n steps before its range instead of
// graphWindow, until the function it returns restores it.
func SetGraphWindow(n int) (restore func()) {
	old := graphWindow
	graphWindow = n
	return func() { graphWindow = old }
}
