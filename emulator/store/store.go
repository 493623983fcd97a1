// Package store persists the simulation state. The simulation only sees the Store interface;
// Memory keeps the state for the life of the process (the default) and Dir keeps it in a
// directory across restarts (gkesim serve --data-dir).
package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gkesim/terraform-provider-gkesim/emulator/sim"
)

// Store saves and loads the whole simulation state.
type Store interface {
	// Load returns the saved state, or nil when nothing was saved yet.
	Load() (*sim.State, error)
	Save(*sim.State) error
}

// formatVersion is written with every saved state so that later versions can migrate it.
const formatVersion = 1

type envelope struct {
	Format int        `json:"format"`
	State  *sim.State `json:"state"`
}

func encode(st *sim.State) ([]byte, error) {
	b, err := json.Marshal(envelope{Format: formatVersion, State: st})
	if err != nil {
		return nil, fmt.Errorf("encode state: %w", err)
	}
	return b, nil
}

func decode(b []byte) (*sim.State, error) {
	var env envelope
	if err := json.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("decode state: %w", err)
	}
	if env.Format != formatVersion {
		return nil, fmt.Errorf("state was written in format %d; this gkesim reads format %d", env.Format, formatVersion)
	}
	if env.State == nil {
		return nil, errors.New("decode state: no state in the saved data")
	}
	return env.State, nil
}

// Memory keeps the encoded state in memory. Loading it gives an independent copy.
type Memory struct {
	mu   sync.Mutex
	data []byte
}

func NewMemory() *Memory { return &Memory{} }

func (m *Memory) Load() (*sim.State, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.data == nil {
		return nil, nil
	}
	return decode(m.data)
}

func (m *Memory) Save(st *sim.State) error {
	b, err := encode(st)
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.data = b
	m.mu.Unlock()
	return nil
}

// Dir keeps the state in DIR/state.json, replaced atomically on every save.
type Dir struct {
	path string
}

// stateFile is the file Dir writes in its directory.
const stateFile = "state.json"

// NewDir uses (and creates if needed) the directory dir.
func NewDir(dir string) (*Dir, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	return &Dir{path: filepath.Join(dir, stateFile)}, nil
}

func (d *Dir) Load() (*sim.State, error) {
	b, err := os.ReadFile(d.path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.path, err)
	}
	st, err := decode(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", d.path, err)
	}
	return st, nil
}

func (d *Dir) Save(st *sim.State) error {
	b, err := encode(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(d.path), stateFile+".*")
	if err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("save state: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	if err := os.Rename(tmp.Name(), d.path); err != nil {
		return fmt.Errorf("save state: %w", err)
	}
	return nil
}
