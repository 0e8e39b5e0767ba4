// Package query reads a search request into weighted terms and its verb.
//
// Analyse reads the shapes of its words (file names, URLs, values, identifiers), its verb,
// everyday words and phrases (package lexicon), synonyms and abbreviations (package
// words), compounds joined and split, and general-English synonyms (package thesaurus).
package query
