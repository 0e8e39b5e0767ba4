package search

import "testing"

// kanaSoundTools are tools described in English whose concept words
// (snippet, policy, instance, editor, markdown) the bilingual lexicon has no
// katakana for.
var kanaSoundTools = []Doc{
	{ID: "snippet", Server: "code", Tool: "save_snippet", Description: "Save a code snippet for later reuse."},
	{ID: "policy", Server: "iam", Tool: "list_policies", Description: "List the access policies of an account."},
	{ID: "instance", Server: "cloud", Tool: "create_instance", Description: "Create a virtual machine instance."},
	{ID: "editor", Server: "ide", Tool: "open_in_editor", Description: "Open a file in the editor."},
	{ID: "markdown", Server: "web", Tool: "fetch_markdown", Description: "Fetch a web page and convert it to markdown."},
	{ID: "read", Server: "fs", Tool: "read_file", Description: "Read the contents of a file."},
	{ID: "note", Server: "notes", Tool: "create_note", Description: "Create a note with a title and body."},
	{ID: "machine", Server: "cloud", Tool: "list_machines", Description: "List the machines of a project."},
	// Tools that share the requests' verbs.
	{ID: "save", Server: "fs", Tool: "save", Description: "Save it."},
	{ID: "users", Server: "iam", Tool: "list", Description: "List them."},
	{ID: "open", Server: "web", Tool: "open", Description: "Open it."},
	{ID: "convert", Server: "media", Tool: "convert_image", Description: "Convert an image to another format."},
	{ID: "project", Server: "cloud", Tool: "create_project", Description: "Create a new project."},
}

// TestKatakanaLoanwordReachesEnglishTool: a Japanese request whose katakana
// loanword the lexicon does not list finds, by the word's sound, the tool
// described with the English word; an English request finds it as before.
func TestKatakanaLoanwordReachesEnglishTool(t *testing.T) {
	t.Parallel()
	ix := New(kanaSoundTools)
	for _, tc := range []struct{ query, want string }{
		{"保存したスニペット", "snippet"},
		{"ポリシーの一覧", "policy"},
		{"インスタンスを新しく作る", "instance"},
		{"エディタで開く", "editor"},
		{"マークダウンに変換", "markdown"},
		{"save a snippet", "snippet"},
		{"list access policies", "policy"},
	} {
		hits := ix.Search(tc.query, 3)
		if len(hits) == 0 || kanaSoundTools[hits[0].Doc].ID != tc.want {
			got := ""
			if len(hits) > 0 {
				got = kanaSoundTools[hits[0].Doc].ID
			}
			t.Errorf("%s: first hit %q, want %q", tc.query, got, tc.want)
		}
	}
}
