"""Text primitives every judge shares: words and stopwords (:mod:`.words`), light grammar
(:mod:`.grammar`), sentence boundaries (:mod:`.sentences`) and negation cues (:mod:`.polarity`).
The lowest floor of judges/: it imports nothing else of groundwatch."""
