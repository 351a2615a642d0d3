// Package schema embeds feedback.schema.json, the JSON Schema (draft-07) of
// the feedback.json a review writes, so the file in the repository and the
// bytes in the binary are one and the same.
package schema

import _ "embed"

// JSON is feedback.schema.json, byte for byte.
//
//go:embed feedback.schema.json
var JSON []byte
