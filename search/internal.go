package search

import "github.com/macemc/macemc/internal/recovered"

// ErrInternal marks a failure of macemc's own code (a panic in an analysis
// that follows the search: the critical transition, the minimization) that
// the pipeline recovered from. The finding and its trace are kept, without
// what that analysis would have added; the report says what failed. A
// service's own panics are findings, never this.
var ErrInternal = recovered.ErrInternal
