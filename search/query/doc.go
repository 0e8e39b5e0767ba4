// Package query reads a search request into weighted terms: the shapes of its words (file
// names, URLs, values, identifiers), its verb, everyday words and phrases (the lexicon),
// synonyms and abbreviations, compounds joined and split, and the thesaurus.
package query
