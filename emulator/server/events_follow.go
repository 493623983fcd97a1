package server

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/labstack/echo/v4"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Following the event log (GET /emulator/v1/events?follow=true) with the discipline of
// Kubernetes watches: a bounded number of followers (429 with Retry-After beyond), each
// holding at most one page of entries, the backlog handed out a page at a time (one short
// trip to the simulation goroutine per page, encoded and written off it), and a follower that
// does not take a page within followWriteTimeout cut off. Without afterSeq or since, a follower
// starts at the newest entry, as a watch without a resourceVersion starts now: a client that
// wants the backlog says where it starts (afterSeq=0: the whole log the emulator keeps).

// DefaultMaxEventFollowers bounds the event log's followers at once.
const DefaultMaxEventFollowers = 64

const (
	// followPage is how many log entries one trip to the simulation looks at; a page of
	// matching entries, encoded, is what a follower holds (about 300 bytes an entry).
	followPage = 512
	// followGather is how long a caught-up follower lets new entries gather before its next
	// page: a busy simulation is asked once per follower per gather, not once per entry.
	followGather = 50 * time.Millisecond
	// followSocketBuffer bounds the kernel's send buffer of a follower's connection: what a
	// client that stops reading can have queued besides its page, so that it is found out
	// (and cut off) after a few pages rather than megabytes.
	followSocketBuffer = 128 << 10
)

// connKey is where ConnContext leaves a request's connection.
type connKey struct{}

// connState is what the server keeps of a connection for its requests.
type connState struct {
	conn net.Conn
	// base is the base URL of the connection's requests' links once the first one worked it
	// out (baseOf): the same for every request of the connection.
	base atomic.Pointer[string]
}

// ConnContext keeps the connection in its requests' context (http.Server.ConnContext), for
// the streams that bound their socket buffer and for the base URL of links.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &connState{conn: c})
}

// boundSendBuffer bounds the send buffer of the TCP connection under ctx's request, looking
// through TLS and other wrappers (NetConn).
func boundSendBuffer(ctx context.Context, size int) {
	cs, ok := ctx.Value(connKey{}).(*connState)
	if !ok {
		return
	}
	c := cs.conn
	for range 4 { // wrappers are few: bounded
		switch v := c.(type) {
		case interface{ SetWriteBuffer(int) error }:
			_ = v.SetWriteBuffer(size)
			return
		case interface{ NetConn() net.Conn }:
			c = v.NetConn()
		default:
			return
		}
	}
}

// followWriteTimeout cuts off a follower whose connection does not take a page in time (a
// variable: tests shorten it).
var followWriteTimeout = 10 * time.Second

// followerLimit counts followers against their bound.
type followerLimit struct {
	max int
	mu  sync.Mutex
	n   int
}

func (l *followerLimit) limit() int {
	if l.max > 0 {
		return l.max
	}
	return DefaultMaxEventFollowers
}

func (l *followerLimit) acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n >= l.limit() {
		return false
	}
	l.n++
	return true
}

func (l *followerLimit) release() {
	l.mu.Lock()
	l.n--
	l.mu.Unlock()
}

// followEvents streams the entries matching f as JSON lines until the client goes away, the
// emulator stops, or the client stops reading.
func (s *Server) followEvents(c echo.Context, f sim.EventFilter) error {
	if !s.followers.acquire() {
		c.Response().Header().Set("Retry-After", "5")
		return &sim.Error{HTTPCode: http.StatusTooManyRequests, Status: "RESOURCE_EXHAUSTED", Reason: "rateLimitExceeded",
			Message: fmt.Sprintf("The emulator serves at most %d event-log followers at once: close one, or retry later.", s.followers.limit())}
	}
	defer s.followers.release()
	ctx := c.Request().Context()
	q := c.QueryParams()
	if !q.Has("afterSeq") && !q.Has("since") {
		// Start now: only entries appended from here on.
		if _, err := s.runner.Read(ctx, func(w *sim.World) error { f.AfterSeq = w.LastEventSeq(); return nil }); err != nil {
			return err
		}
	}
	boundSendBuffer(ctx, followSocketBuffer)
	res := c.Response()
	res.Header().Set(echo.HeaderContentType, "application/x-ndjson")
	res.WriteHeader(http.StatusOK)
	res.Flush()
	rc := http.NewResponseController(res)
	var page bytes.Buffer
	enc := json.NewEncoder(&page)
	for {
		var entries []sim.LogEntry
		var more bool
		var changed <-chan struct{}
		// Rendering shares followCPU with the other followers: catching up on a long backlog
		// never takes more than that of the machine from the simulation and its readers.
		select {
		case followCPU <- struct{}{}:
		case <-ctx.Done():
			return nil
		}
		_, err := s.runner.Read(ctx, func(w *sim.World) error {
			entries, f.AfterSeq, more = w.EventPage(f, followPage)
			if !more {
				changed = w.LogChanged()
			}
			return nil
		})
		if err == nil {
			page.Reset()
			for i := range entries {
				if err = enc.Encode(entries[i].API()); err != nil {
					break
				}
			}
		}
		<-followCPU
		if err != nil {
			return nil // the client left or the emulator is stopping
		}
		if page.Len() > 0 {
			// A follower that does not take its page in time is cut off: it would otherwise
			// hold the page, and its connection, for as long as it likes.
			_ = rc.SetWriteDeadline(time.Now().Add(followWriteTimeout))
			if _, err := res.Write(page.Bytes()); err != nil {
				return nil
			}
			if err := rc.Flush(); err != nil {
				return nil
			}
		}
		if more {
			continue
		}
		select {
		case <-changed:
		case <-ctx.Done():
			return nil
		}
		select {
		case <-time.After(followGather):
		case <-ctx.Done():
			return nil
		}
	}
}

// followCPU bounds how many followers fetch and render a page at once: half the machine's
// processors, at least one.
var followCPU = make(chan struct{}, max(runtime.GOMAXPROCS(0)/2, 1))
