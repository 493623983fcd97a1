package sim

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// The journal keeps each command as one record. A command without a body is its JSON. A
// request with a body is
//
//	0x00 | uint32 length of the JSON (little-endian) | the command as JSON, without the body | the body as sent
//
// so that a large body (an import of hundreds of megabytes) is kept as it came: not
// base64-encoded into the JSON, which made it a third larger and cost a second copy and more
// while it was encoded. Records of the first kind, bodies included (written before this
// encoding), are read as they are.

// bodyRecord marks a record that carries its request's body raw after its JSON.
const bodyRecord = 0x00

// encodeCommand is the journal record of c.
func encodeCommand(c *Command) ([]byte, error) {
	if c.Request == nil || len(c.Request.Body) == 0 {
		return json.Marshal(c)
	}
	req := *c.Request
	body := req.Body
	req.Body = nil
	head := *c
	head.Request = &req
	js, err := json.Marshal(&head)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 5+len(js)+len(body))
	out = append(out, bodyRecord)
	out = binary.LittleEndian.AppendUint32(out, uint32(len(js)))
	out = append(out, js...)
	return append(out, body...), nil
}

// decodeCommand reads a journal record, of either kind. A request's body is a sub-slice of
// data, not a copy.
func decodeCommand(data []byte) (*Command, error) {
	var c Command
	if len(data) == 0 || data[0] != bodyRecord {
		if err := json.Unmarshal(data, &c); err != nil {
			return nil, fmt.Errorf("decode journal command: %w", err)
		}
		return &c, nil
	}
	if len(data) < 5 {
		return nil, errors.New("decode journal command: a record with a body ends before its length")
	}
	n := int(binary.LittleEndian.Uint32(data[1:5]))
	if n > len(data)-5 {
		return nil, fmt.Errorf("decode journal command: a record with a body says its JSON is %d bytes; %d follow", n, len(data)-5)
	}
	if err := json.Unmarshal(data[5:5+n], &c); err != nil {
		return nil, fmt.Errorf("decode journal command: %w", err)
	}
	if c.Request == nil {
		return nil, errors.New("decode journal command: a record with a body has no request")
	}
	c.Request.Body = data[5+n:]
	return &c, nil
}
