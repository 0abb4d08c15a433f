package sim

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// ErrBadFailures marks a failure specification that does not parse.
var ErrBadFailures = errors.New("sim: bad failure specification")

// ParseFailures applies a failure specification to f and returns the
// result: comma-separated NAME=VALUE settings, where NAME is one of
// resets, crashes, breaks, drops, duplicates, partitions (budgets per
// execution), pernode (resets and crashes of any one node), reorder (true
// or false), nodes (the nodes that may reset or
// crash, joined by "+", or "all"), links (node pairs "a-b" joined by "+",
// or "all") and splits (partition sides, each its nodes joined by "+",
// separated by "/", or "default"). Settings not named keep f's value:
//
//	resets=1,crashes=1,partitions=1,nodes=0+1,links=0-1+1-2
//
// The command line's --faults flag takes this form. An empty spec changes
// nothing (a trace or search without an override has one); a blank one,
// and a node, link (either direction: see Link) or side given twice, are
// errors. A filter the budgets leave nothing to filter (nodes= with no
// reset or crash budget) parses: CheckFilters, given the result, refuses
// it.
func ParseFailures(f Failures, spec string) (Failures, error) {
	f.Nodes, f.Links, f.Splits = slices.Clone(f.Nodes), slices.Clone(f.Links), slices.Clone(f.Splits)
	if spec == "" {
		return f, nil
	}
	if strings.TrimSpace(spec) == "" {
		return f, fmt.Errorf("%w: %q is blank: give settings such as resets=1 (or no specification at all, to keep the system's failures)", ErrBadFailures, spec)
	}
	given := map[string]string{}
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok {
			return f, fmt.Errorf("%w: %q is not NAME=VALUE", ErrBadFailures, part)
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if was, twice := given[k]; twice {
			return f, fmt.Errorf("%w: %s given twice (%s=%s and %s=%s): give it once", ErrBadFailures, k, k, was, k, v)
		}
		given[k] = v
		budget := map[string]*int{"resets": &f.Resets, "crashes": &f.Crashes, "breaks": &f.Breaks, "drops": &f.Drops,
			"duplicates": &f.Duplicates, "partitions": &f.Partitions, "pernode": &f.PerNode}
		if p, ok := budget[k]; ok {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 || n > 1<<20 {
				return f, fmt.Errorf("%w: %s=%q is not a count from 0 to %d", ErrBadFailures, k, v, 1<<20)
			}
			*p = n
			continue
		}
		var err error
		switch k {
		case "reorder":
			if f.Reorder, err = strconv.ParseBool(v); err != nil {
				return f, fmt.Errorf("%w: reorder=%q is not true or false", ErrBadFailures, v)
			}
		case "nodes":
			if f.Nodes, err = parseNodes(v); err != nil {
				return f, fmt.Errorf("%w: nodes=%q: %v", ErrBadFailures, v, err)
			}
		case "links":
			f.Links = nil
			if v != "all" {
				for _, l := range strings.Split(v, "+") {
					a, b, ok := strings.Cut(l, "-")
					x, err1 := strconv.Atoi(a)
					y, err2 := strconv.Atoi(b)
					if !ok || err1 != nil || err2 != nil || x < 0 || y < 0 {
						return f, fmt.Errorf("%w: links=%q: %q is not a node pair a-b", ErrBadFailures, v, l)
					}
					if x == y {
						return f, fmt.Errorf("%w: links=%q: %q links a node to itself (a link joins two nodes)", ErrBadFailures, v, l)
					}
					for _, was := range f.Links {
						switch {
						case was == (Link{NodeID(x), NodeID(y)}):
							return f, fmt.Errorf("%w: links=%q: link %s given twice", ErrBadFailures, v, l)
						case was == (Link{NodeID(y), NodeID(x)}):
							return f, fmt.Errorf("%w: links=%q: link %d-%d given twice, as %d-%d and %s (a link names both directions)", ErrBadFailures, v, y, x, y, x, l)
						}
					}
					f.Links = append(f.Links, Link{NodeID(x), NodeID(y)})
				}
			}
		case "splits":
			f.Splits = nil
			if v != "default" {
				for _, side := range strings.Split(v, "/") {
					ids, err := parseNodes(side)
					if err != nil || len(ids) == 0 {
						return f, fmt.Errorf("%w: splits=%q: %q is not a side (nodes joined by +)", ErrBadFailures, v, side)
					}
					for _, was := range f.Splits {
						if sameNodes(was, ids) {
							return f, fmt.Errorf("%w: splits=%q: side %s given twice", ErrBadFailures, v, joinNodes(ids))
						}
					}
					f.Splits = append(f.Splits, ids)
				}
			}
		default:
			return f, fmt.Errorf("%w: unknown setting %q (known: resets, crashes, breaks, drops, duplicates, partitions, pernode, reorder, nodes, links, splits)", ErrBadFailures, k)
		}
	}
	return f, nil
}

// CheckFilters returns an error (wrapping ErrBadFailures) when spec gives
// a filter that can never apply: f, the failures ParseFailures made of
// spec, has no budget for it to filter. nodes= and pernode= filter resets
// and crashes, links= breaks, drops and duplicates, and splits=
// partitions. Its text past ErrBadFailures' says what is allowed, e.g.
// "nodes with a reset or crash budget: ...". Filters the system set, and
// "all" or "default", are not checked: only what spec gives.
func CheckFilters(f Failures, spec string) error {
	given, err := ParseFailures(Failures{}, spec)
	if err != nil {
		return err
	}
	bad := func(what string) error { return fmt.Errorf("%w: %s", ErrBadFailures, what) }
	switch {
	case len(given.Nodes) > 0 && f.Resets == 0 && f.Crashes == 0:
		return bad("nodes with a reset or crash budget: nodes say which nodes may reset or crash, and resets=0,crashes=0 allow none (add resets=N or crashes=N)")
	case given.PerNode > 0 && f.Resets == 0 && f.Crashes == 0:
		return bad("pernode with a reset or crash budget: pernode bounds the resets and crashes of each node, and resets=0,crashes=0 allow none (add resets=N or crashes=N)")
	case len(given.Links) > 0 && f.Breaks == 0 && f.Drops == 0 && f.Duplicates == 0:
		return bad("links with a break, drop or duplicate budget: links say where connections may break and datagrams may be dropped or duplicated, and breaks=0,drops=0,duplicates=0 allow none (add breaks=N, drops=N or duplicates=N)")
	case len(given.Splits) > 0 && f.Partitions == 0:
		return bad("splits with a partition budget: the splits say where partitions may cut, and partitions=0 allows none (add partitions=N)")
	}
	return nil
}

// sameNodes reports whether a and b hold the same nodes, in any order.
func sameNodes(a, b []NodeID) bool {
	if len(a) != len(b) {
		return false
	}
	for _, id := range a {
		if !slices.Contains(b, id) {
			return false
		}
	}
	return true
}

func joinNodes(ids []NodeID) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.Itoa(int(id))
	}
	return strings.Join(s, "+")
}

func parseNodes(v string) ([]NodeID, error) {
	if v == "all" {
		return nil, nil
	}
	var out []NodeID
	for _, x := range strings.Split(v, "+") {
		n, err := strconv.Atoi(strings.TrimSpace(x))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a node", x)
		}
		if slices.Contains(out, NodeID(n)) {
			return nil, fmt.Errorf("node %d given twice", n)
		}
		out = append(out, NodeID(n))
	}
	return out, nil
}

// String returns the failures in ParseFailures' form, every budget
// included, e.g. "resets=1,crashes=0,breaks=0,drops=0,duplicates=0,
// partitions=1,reorder=false"; pernode, nodes, links and splits only
// when set.
// ParseFailures(Failures{}, f.String()) gives f back.
func (f Failures) String() string {
	parts := []string{
		"resets=" + strconv.Itoa(f.Resets), "crashes=" + strconv.Itoa(f.Crashes), "breaks=" + strconv.Itoa(f.Breaks),
		"drops=" + strconv.Itoa(f.Drops), "duplicates=" + strconv.Itoa(f.Duplicates), "partitions=" + strconv.Itoa(f.Partitions),
		"reorder=" + strconv.FormatBool(f.Reorder),
	}
	if f.PerNode > 0 {
		parts = append(parts, "pernode="+strconv.Itoa(f.PerNode))
	}
	if len(f.Nodes) > 0 {
		parts = append(parts, "nodes="+joinNodes(f.Nodes))
	}
	if len(f.Links) > 0 {
		ls := make([]string, len(f.Links))
		for i, l := range f.Links {
			ls[i] = fmt.Sprintf("%d-%d", l[0], l[1])
		}
		parts = append(parts, "links="+strings.Join(ls, "+"))
	}
	if len(f.Splits) > 0 {
		ss := make([]string, len(f.Splits))
		for i, side := range f.Splits {
			ss[i] = joinNodes(side)
		}
		parts = append(parts, "splits="+strings.Join(ss, "/"))
	}
	return strings.Join(parts, ",")
}
