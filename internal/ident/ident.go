package ident

// KeyLength is the number of hex characters in an API key.
const KeyLength = 32

// ValidKey reports whether s has the shape of an API key: KeyLength
// lowercase hexadecimal characters.
func ValidKey(s string) bool {
	if len(s) != KeyLength {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
			return false
		}
	}
	return true
}

// ValidIdentifier is the shape of plan and network names: 1 to 64
// lowercase letters, digits, - and _.
func ValidIdentifier(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c == '-' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) {
			return false
		}
	}
	return true
}
