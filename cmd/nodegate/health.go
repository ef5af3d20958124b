package main

import (
	"fmt"
	"io"
	"net/http"
	"time"
)

// runHealth is `nodegate health URL`: exit 0 when GET URL answers 200, 1
// otherwise. Container images without curl use it for HEALTHCHECK.
func runHealth(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "usage: nodegate health URL   (e.g. http://127.0.0.1:8545/health or /ready)")
		return 2
	}
	client := &http.Client{Timeout: 3 * time.Second}
	resp, err := client.Get(args[0])
	if err != nil {
		fmt.Fprintln(stderr, "nodegate health:", err)
		return 1
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	fmt.Fprintf(stdout, "%d %s\n", resp.StatusCode, body)
	if resp.StatusCode != http.StatusOK {
		return 1
	}
	return 0
}
