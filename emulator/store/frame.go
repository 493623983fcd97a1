package store

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"time"
)

// A journal segment is a sequence of frames:
//
//	length uint32 | crc uint32 | seq uint64 | at int64 (Unix ns) | kind byte | data
//
// little-endian, where length counts the bytes after the crc and the crc (Castagnoli) covers
// them. kind 0 is a clock mark (no data), 1 a command.

const (
	frameHeader  = 8         // length + crc
	frameFixed   = 8 + 8 + 1 // seq + at + kind
	kindMark     = 0
	kindCommand  = 1
	maxFrameBody = 1 << 30
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// frameSize is the bytes a record with data takes in a segment.
func frameSize(data []byte) int64 { return int64(frameHeader + frameFixed + len(data)) }

// appendFrame encodes one record onto b.
func appendFrame(b []byte, seq uint64, at time.Time, data []byte) []byte {
	return append(append(b, frameHead(seq, at, data)...), data...)
}

// frameHead encodes a record's frame but its data: what precedes the data in the segment.
func frameHead(seq uint64, at time.Time, data []byte) []byte {
	f := make([]byte, frameHeader+frameFixed)
	binary.LittleEndian.PutUint32(f[0:], uint32(frameFixed+len(data)))
	binary.LittleEndian.PutUint64(f[8:], seq)
	binary.LittleEndian.PutUint64(f[16:], uint64(at.UnixNano()))
	if data != nil {
		f[24] = kindCommand
	}
	crc := crc32.Update(crc32.Checksum(f[8:], crcTable), crcTable, data)
	binary.LittleEndian.PutUint32(f[4:], crc)
	return f
}

var (
	errTorn   = errors.New("the journal ends in the middle of a record")
	errBadCRC = errors.New("a journal record fails its checksum")
	errBadLen = errors.New("a journal record has an impossible length")
)

// parseFrames decodes the records of a segment. On a bad frame it returns the records before
// it, the offset where it starts and what is wrong.
func parseFrames(data []byte) (recs []Record, good int, err error) {
	for off := 0; off < len(data); {
		rest := data[off:]
		if len(rest) < frameHeader {
			return recs, off, errTorn
		}
		body := int(binary.LittleEndian.Uint32(rest))
		if body < frameFixed || body > maxFrameBody {
			return recs, off, errBadLen
		}
		if len(rest) < frameHeader+body {
			return recs, off, errTorn
		}
		f := rest[frameHeader : frameHeader+body]
		if crc32.Checksum(f, crcTable) != binary.LittleEndian.Uint32(rest[4:]) {
			return recs, off, errBadCRC
		}
		r := Record{Seq: binary.LittleEndian.Uint64(f), At: time.Unix(0, int64(binary.LittleEndian.Uint64(f[8:]))).UTC()}
		switch f[16] {
		case kindMark:
		case kindCommand:
			r.Data = append([]byte{}, f[frameFixed:]...)
		default:
			return recs, off, errBadLen
		}
		recs = append(recs, r)
		off += frameHeader + body
	}
	return recs, len(data), nil
}

// intactFrameAfter looks for a whole record with a valid checksum that starts after byte from
// of a segment and would come after record seq: records after damage prove the damage is not
// a write torn by a crash (a crash tears only the last record written). It returns the offset
// of the first such record, or -1.
func intactFrameAfter(data []byte, from int, seq uint64) int {
	// A record takes at least frameHeader+frameFixed bytes, which bounds the seq a record in
	// the rest of the segment can have: a cheap test before the checksum.
	most := seq + uint64(len(data)-from)/(frameHeader+frameFixed) + 1
	for off := from + 1; off+frameHeader+frameFixed <= len(data); off++ {
		rest := data[off:]
		if s := binary.LittleEndian.Uint64(rest[frameHeader:]); s <= seq || s > most {
			continue
		}
		body := int(binary.LittleEndian.Uint32(rest))
		if body < frameFixed || body > maxFrameBody || len(rest) < frameHeader+body {
			continue
		}
		if crc32.Checksum(rest[frameHeader:frameHeader+body], crcTable) == binary.LittleEndian.Uint32(rest[4:]) {
			return off
		}
	}
	return -1
}
