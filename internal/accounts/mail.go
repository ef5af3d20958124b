package accounts

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"net/smtp"
	"strings"
	"time"
)

// Mailer sends one plain-text message.
type Mailer interface {
	Send(ctx context.Context, to, subject, body string) error
}

// SMTP sends mail through a mail server (config accounts.smtp). It uses
// STARTTLS when the server offers it, and authenticates (PLAIN) only over
// TLS or to a loopback server, as net/smtp requires.
type SMTP struct {
	// Addr is host:port.
	Addr string
	// From is the sender address.
	From string
	// Username and Password authenticate, when Username is set.
	Username, Password string
	// Timeout bounds the whole exchange (default 15s).
	Timeout time.Duration
}

// Send implements Mailer.
func (m *SMTP) Send(ctx context.Context, to, subject, body string) error {
	for _, v := range []string{to, subject, m.From} {
		if strings.ContainsAny(v, "\r\n") {
			return fmt.Errorf("smtp: a header holds a line break")
		}
	}
	timeout := m.Timeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	conn, err := (&net.Dialer{}).DialContext(ctx, "tcp", m.Addr)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", m.Addr, err)
	}
	defer conn.Close()
	deadline, _ := ctx.Deadline()
	_ = conn.SetDeadline(deadline)
	host, _, _ := net.SplitHostPort(m.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return fmt.Errorf("smtp %s: %w", m.Addr, err)
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return fmt.Errorf("smtp %s: starttls: %w", m.Addr, err)
		}
	}
	if m.Username != "" {
		if err := c.Auth(smtp.PlainAuth("", m.Username, m.Password, host)); err != nil {
			return fmt.Errorf("smtp %s: auth: %w", m.Addr, err)
		}
	}
	if err := c.Mail(m.From); err != nil {
		return fmt.Errorf("smtp %s: MAIL FROM: %w", m.Addr, err)
	}
	if err := c.Rcpt(to); err != nil {
		return fmt.Errorf("smtp %s: RCPT TO: %w", m.Addr, err)
	}
	w, err := c.Data()
	if err != nil {
		return fmt.Errorf("smtp %s: DATA: %w", m.Addr, err)
	}
	msg := "From: " + m.From + "\r\nTo: " + to + "\r\nSubject: " + subject +
		"\r\nDate: " + time.Now().UTC().Format(time.RFC1123Z) +
		"\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" + body
	if _, err := w.Write([]byte(msg)); err != nil {
		return fmt.Errorf("smtp %s: write: %w", m.Addr, err)
	}
	if err := w.Close(); err != nil {
		return fmt.Errorf("smtp %s: end of data: %w", m.Addr, err)
	}
	return c.Quit()
}
