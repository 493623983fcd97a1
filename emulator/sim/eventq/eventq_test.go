package eventq

import (
	"encoding/json"
	"testing"
	"time"
)

func TestPopDueOrdersByTimeThenPushOrder(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var q Queue[string]
	q.Push(t0.Add(3*time.Second), "c")
	q.Push(t0.Add(1*time.Second), "a1")
	q.Push(t0.Add(2*time.Second), "b")
	q.Push(t0.Add(1*time.Second), "a2")

	if _, ok := q.PopDue(t0); ok {
		t.Fatal("nothing is due at t0")
	}
	var got []string
	for {
		it, ok := q.PopDue(t0.Add(2 * time.Second))
		if !ok {
			break
		}
		got = append(got, it.Value)
	}
	want := []string{"a1", "a2", "b"}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("got %v, want %v", got, want)
		}
	}
	if q.Len() != 1 {
		t.Fatalf("Len = %d, want 1", q.Len())
	}
}

func TestQueueSurvivesJSONRoundTrip(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var q Queue[int]
	for i := 0; i < 50; i++ {
		q.Push(t0.Add(time.Duration((i*37)%11)*time.Second), i)
	}
	b, err := json.Marshal(&q)
	if err != nil {
		t.Fatal(err)
	}
	var r Queue[int]
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	r.Init()
	r.Push(t0, 1000) // a push after restore must not reuse a seq
	last := time.Time{}
	lastSeq := uint64(0)
	n := 0
	for {
		it, ok := r.PopDue(t0.Add(time.Hour))
		if !ok {
			break
		}
		if it.At.Before(last) || (it.At.Equal(last) && it.Seq < lastSeq) {
			t.Fatalf("out of order at item %d", n)
		}
		last, lastSeq = it.At, it.Seq
		n++
	}
	if n != 51 {
		t.Fatalf("popped %d items, want 51", n)
	}
}

func BenchmarkPushPop(b *testing.B) {
	f := NewFloorQueue()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		f.PushPop(i)
	}
}

// A queue read back from its JSON writes the same JSON: a saved state loads to the same state.
func TestQueueJSONIsStable(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var q Queue[int]
	for i := 0; i < 200; i++ {
		q.Push(t0.Add(time.Duration((i*7919)%101)*time.Millisecond), i)
		if i%3 == 0 {
			q.PopDue(t0.Add(20 * time.Millisecond))
		}
	}
	a, _ := json.Marshal(q)
	var r Queue[int]
	if err := json.Unmarshal(a, &r); err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(r)
	if string(a) != string(b) {
		t.Fatalf("the queue's JSON changed across a round trip:\n%s\n%s", a, b)
	}
}

// After a burst is popped, the slab shrinks back, and what remains pops in order.
func TestQueueShrinksAfterABurst(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var q Queue[int]
	for i := 0; i < 100000; i++ {
		q.Push(t0.Add(time.Duration(i%1000)*time.Millisecond), i)
	}
	q.Push(t0.Add(time.Hour), -1)
	for {
		if _, ok := q.PopDue(t0.Add(time.Second)); !ok {
			break
		}
	}
	if q.Len() != 1 || len(q.vals) > 4096 {
		t.Fatalf("after the burst: %d items, slab of %d", q.Len(), len(q.vals))
	}
	if it, ok := q.PopDue(t0.Add(2 * time.Hour)); !ok || it.Value != -1 {
		t.Fatalf("the item left is %v %v", it, ok)
	}
}
