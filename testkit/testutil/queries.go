package testutil

// TypicalQueries are the task phrasings every search benchmark runs (the search package's
// own and the bridge's "after one typical search" figures), so that their figures are over
// the same requests. A new slice each call: callers take it once, before they measure.
func TypicalQueries() []string {
	return []string{
		"create a github issue about the login bug",
		"take a screenshot of the page",
		"list pods in the default namespace",
		"what did I change since the last commit",
		"open an MR from feature into main",
		"find documents in a mongo collection",
		"search the web for the latest news",
		"read the file config.yaml",
	}
}
