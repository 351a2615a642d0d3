// Package schema embeds the JSON Schemas (draft-07) of the documents
// agentv-review writes: feedback.schema.json, the feedback.json a review
// writes, and calibration.schema.json, the judge certificate. The files in
// the repository and the bytes in the binary are one and the same.
package schema

import _ "embed"

// JSON is feedback.schema.json, byte for byte.
//
//go:embed feedback.schema.json
var JSON []byte

// CalibrationJSON is calibration.schema.json, byte for byte.
//
//go:embed calibration.schema.json
var CalibrationJSON []byte
