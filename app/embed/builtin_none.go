//go:build !engram_model

package embed

// embeddedModel is nil: this binary was built without the tag
// engram_model, so the model is looked for on disk (BuiltinLocation).
var embeddedModel map[string]string
