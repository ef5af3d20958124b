package logging

import "regexp"

// urlPassword matches the user information of a URL with a password:
// scheme://user:password@ (the password up to the @ that ends it).
var urlPassword = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://[^:/@\s]*:)[^@\s/]*@`)

// RedactURLs hides the password of every URL in s (scheme://user:xxxxx@),
// for an error that may quote a store's URL on its way to the server log.
// What a client is told of such an error is a generic message, never this.
func RedactURLs(s string) string {
	return urlPassword.ReplaceAllString(s, "${1}xxxxx@")
}
