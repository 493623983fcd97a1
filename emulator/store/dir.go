package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// The layout of a data directory.
const (
	stateFile   = "state.json"
	journalDir  = "journal"
	lockFile    = "lock"
	segmentExt  = ".journal"
	segmentName = "%020d" + segmentExt
)

// dirBackend keeps the store in a directory.
type dirBackend struct {
	dir   string
	lockF *os.File
}

func newDirBackend(dir string) (*dirBackend, error) {
	if err := os.MkdirAll(filepath.Join(dir, journalDir), 0o755); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	return &dirBackend{dir: dir}, nil
}

func (d *dirBackend) describe() string { return "the data directory " + d.dir }

func (d *dirBackend) lock() error {
	path := filepath.Join(d.dir, lockFile)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("lock %s: %w", d.dir, err)
	}
	if err := lockFileExclusive(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		who := "another gkesim"
		if pid := strings.TrimSpace(string(holder)); pid != "" {
			who += " (pid " + pid + ")"
		}
		return fmt.Errorf("the data directory %s is in use by %s: stop it, or give this one another --data-dir", d.dir, who)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	d.lockF = f
	return nil
}

func (d *dirBackend) unlock() error {
	if d.lockF == nil {
		return nil
	}
	err := unlockFile(d.lockF)
	d.lockF.Close()
	d.lockF = nil
	return err
}

func (d *dirBackend) snapshotName() string { return filepath.Join(d.dir, stateFile) }

func (d *dirBackend) readSnapshot() ([]byte, error) {
	b, err := os.ReadFile(d.snapshotName())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.snapshotName(), err)
	}
	return b, nil
}

// tempPattern names the temporary file a snapshot is written to before it is renamed over
// state.json. Only one snapshot is written at a time, so any such file the writer finds before
// it starts is what a crash between writing and renaming left.
const tempPattern = stateFile + ".*"

// removePartialSnapshots deletes the temporary snapshot files crashes left behind and returns
// their names.
func (d *dirBackend) removePartialSnapshots() ([]string, error) {
	names, err := filepath.Glob(filepath.Join(d.dir, tempPattern))
	if err != nil {
		return nil, err
	}
	var removed []string
	for _, n := range names {
		if err := os.Remove(n); err != nil && !errors.Is(err, os.ErrNotExist) {
			return removed, fmt.Errorf("remove %s, a partial snapshot left by a crash: %w", n, err)
		}
		removed = append(removed, n)
	}
	return removed, nil
}

// crashBeforeRename, set by tests only, runs once a snapshot's temporary file is durable and
// before it is renamed: a test kills the process there.
var crashBeforeRename func()

func (d *dirBackend) writeSnapshot(b []byte) error {
	if _, err := d.removePartialSnapshots(); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(d.dir, tempPattern)
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if crashBeforeRename != nil {
		crashBeforeRename()
	}
	if err := os.Rename(tmp.Name(), d.snapshotName()); err != nil {
		return err
	}
	return syncDir(d.dir)
}

func (d *dirBackend) segmentName(first uint64) string {
	return filepath.Join(d.dir, journalDir, fmt.Sprintf(segmentName, first))
}

func (d *dirBackend) segments() ([]uint64, error) {
	ents, err := os.ReadDir(filepath.Join(d.dir, journalDir))
	if err != nil {
		return nil, fmt.Errorf("read the journal of %s: %w", d.dir, err)
	}
	var out []uint64
	for _, e := range ents {
		name := e.Name()
		if !strings.HasSuffix(name, segmentExt) {
			continue
		}
		n, err := strconv.ParseUint(strings.TrimSuffix(name, segmentExt), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: not a journal segment name (want a record number, as %s)", filepath.Join(d.dir, journalDir, name), fmt.Sprintf(segmentName, 1))
		}
		out = append(out, n)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, nil
}

func (d *dirBackend) readSegment(first uint64) ([]byte, error) {
	b, err := os.ReadFile(d.segmentName(first))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.segmentName(first), err)
	}
	return b, nil
}

func (d *dirBackend) truncateSegment(first uint64, size int64) error {
	if err := os.Truncate(d.segmentName(first), size); err != nil {
		return fmt.Errorf("repair %s: %w", d.segmentName(first), err)
	}
	return nil
}

// keepCut writes the bytes cut from a damaged segment beside the data directory's snapshot,
// where the journal's listing does not see them: damaged-<segment>-<unix time>.
func (d *dirBackend) keepCut(first uint64, cut []byte) (string, error) {
	name := filepath.Join(d.dir, fmt.Sprintf("damaged-"+segmentName+"-%d", first, time.Now().Unix()))
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", err
	}
	_, err = f.Write(cut)
	if serr := f.Sync(); err == nil {
		err = serr
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = syncDir(d.dir)
	}
	if err != nil {
		os.Remove(name)
		return "", err
	}
	return name, nil
}

func (d *dirBackend) createSegment(first uint64) (segmentFile, error) {
	// O_APPEND: after a failed write is cut (Truncate), the next write lands at the cut.
	name := d.segmentName(first)
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		// Left by an earlier attempt that failed after creating it: names are record numbers,
		// never reused, and Open removes an empty last segment, so it holds nothing.
		if fi, serr := os.Stat(name); serr == nil && fi.Size() == 0 {
			f, err = os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0o644)
		}
	}
	if err != nil {
		return nil, err
	}
	// The new file's name must survive a crash as well as its content.
	if err := syncDir(filepath.Join(d.dir, journalDir)); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

func (d *dirBackend) removeSegment(first uint64) error {
	err := os.Remove(d.segmentName(first))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// syncDir makes the directory's entries (a rename, a new file) durable.
func syncDir(dir string) error {
	f, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return err
	}
	return nil
}
