package core

// nodeHeap is a scheduler group's schedulable nodes ordered by free CPU (most first), then free
// memory, then name: under the default profile a pod goes to the heap's first node when it
// fits there (SchedGroup.fit). An entry keeps the free resources that order it beside its node, so that sifting
// reads the heap's array rather than each node it compares (a surge upgrade sifts at every
// bind and every pod gone). It moves entries exactly as container/heap does, which it
// replaced: the order in which the scheduler and the autoscaler walk a group's nodes (the
// heap's array) is the same as before.
type nodeHeap []heapEntry

// heapEntry is one node of a nodeHeap.
type heapEntry struct {
	MilliCPU, MemoryBytes int64 // the node's Free when it was last pushed or fixed
	Node                  *schedNode
}

func (h nodeHeap) Len() int { return len(h) }

func (h nodeHeap) less(i, j int) bool {
	a, b := &h[i], &h[j]
	if a.MilliCPU != b.MilliCPU {
		return a.MilliCPU > b.MilliCPU
	}
	if a.MemoryBytes != b.MemoryBytes {
		return a.MemoryBytes > b.MemoryBytes
	}
	return a.Node.Name < b.Node.Name
}

func (h nodeHeap) swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].Node.Idx = i
	h[j].Node.Idx = j
}

// push adds sn (not in the heap) as its Free orders it.
func (h *nodeHeap) push(sn *schedNode) {
	sn.Idx = len(*h)
	*h = append(*h, heapEntry{MilliCPU: sn.Free.MilliCPU, MemoryBytes: sn.Free.MemoryBytes, Node: sn})
	h.up(len(*h) - 1)
}

// remove takes out the node at i.
func (h *nodeHeap) remove(i int) {
	n := len(*h) - 1
	if n != i {
		h.swap(i, n)
		if !h.down(i, n) {
			h.up(i)
		}
	}
	old := *h
	old[n].Node.Idx = -1
	old[n] = heapEntry{}
	*h = old[:n]
}

// fix moves the node at i to where its Free (changed) puts it.
func (h nodeHeap) fix(i int) {
	e := &h[i]
	e.MilliCPU, e.MemoryBytes = e.Node.Free.MilliCPU, e.Node.Free.MemoryBytes
	if !h.down(i, len(h)) {
		h.up(i)
	}
}

func (h nodeHeap) up(j int) {
	for {
		i := (j - 1) / 2 // parent
		if i == j || !h.less(j, i) {
			break
		}
		h.swap(i, j)
		j = i
	}
}

func (h nodeHeap) down(i0, n int) bool {
	i := i0
	for {
		j1 := 2*i + 1
		if j1 >= n || j1 < 0 {
			break
		}
		j := j1
		if j2 := j1 + 1; j2 < n && h.less(j2, j1) {
			j = j2
		}
		if !h.less(j, i) {
			break
		}
		h.swap(i, j)
		i = j
	}
	return i > i0
}
