//go:build !linux

package ingest

import "github.com/stampede/stampede/timeline"

// adviseHugePages is a Linux kernel hint; elsewhere there is nothing to ask.
func adviseHugePages([]timeline.Event) {}
