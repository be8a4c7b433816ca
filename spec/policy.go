package spec

// Policy is a named command policy a tool runs from its checks (`- policy: NAME`).
// (Owned by the policy work; extended there.)
type Policy struct {
	// Name is how checks refer to the policy.
	Name string `yaml:"name" json:"name"`
	// Kind selects the engine.
	Kind string `yaml:"kind" json:"kind"`
	// Fail is how a blocked command reaches the host.
	Fail *Failure `yaml:"fail,omitempty" json:"fail,omitempty"`
}
