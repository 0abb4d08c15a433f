// Package all registers every example system of macemc: import it for its
// side effect, as the macemc and mdb commands do.
//
// # Usage
//
//	import _ "github.com/macemc/macemc/services/all"
package all
