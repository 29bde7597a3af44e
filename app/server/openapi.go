package server

import _ "embed"

// OpenAPI is the API's contract; a test checks the server against it.
//
//go:embed openapi.json
var OpenAPI []byte
