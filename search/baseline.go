package search

import (
	"sort"
	"strings"
)

// Baseline ranks docs with the reference bridge's substring scoring
// (reference-bridge.md §8), kept for comparison in benchmarks and tests.
//
// The query is lower-cased and split on white space. Each term scores, by the
// first rule that applies: equal to the MCP name or the full ID 100; a
// substring of the MCP name 60, of the server name 40, of the ID 30, of the
// description 15. A doc scores the sum plus 25 when every term matched; docs
// scoring 0 are dropped; the rest are sorted by score descending then ID
// ascending and cut to limit (limit <= 0 means DefaultLimit). The description
// is the reference's enriched one: "<title>: <description>" when a title is
// set.
func Baseline(docs []Doc, query string, limit int) []Hit {
	if limit <= 0 {
		limit = DefaultLimit
	}
	terms := strings.Fields(strings.ToLower(query))
	if len(terms) == 0 {
		return nil
	}
	var hits []Hit
	for i := range docs {
		d := &docs[i]
		id := strings.ToLower(d.ID)
		server := strings.ToLower(d.Server)
		tool := strings.ToLower(d.Tool)
		desc := d.Description
		if d.Title != "" {
			desc = d.Title + ": " + desc
		}
		desc = strings.ToLower(desc)
		score, all := 0, true
		for _, t := range terms {
			switch {
			case t == tool || t == id:
				score += 100
			case strings.Contains(tool, t):
				score += 60
			case strings.Contains(server, t):
				score += 40
			case strings.Contains(id, t):
				score += 30
			case strings.Contains(desc, t):
				score += 15
			default:
				all = false
			}
		}
		if all {
			score += 25
		}
		if score > 0 {
			hits = append(hits, Hit{Doc: i, Score: float64(score)})
		}
	}
	sort.Slice(hits, func(a, b int) bool {
		if hits[a].Score != hits[b].Score {
			return hits[a].Score > hits[b].Score
		}
		return docs[hits[a].Doc].ID < docs[hits[b].Doc].ID
	})
	if len(hits) > limit {
		hits = hits[:limit]
	}
	return hits
}
