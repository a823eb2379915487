#!/bin/sh
# bench/make_text_corpus.sh OUT.txt — the corpus of attnviz's bundled language model: Jane Austen's
# six novels as Debian's r-cran-janeaustenr ships them (the texts are in the public domain; the
# package is MIT), one paragraph a line, in the package's order: Sense and Sensibility, Pride and
# Prejudice, Mansfield Park, Emma, Northanger Abbey, Persuasion.
#
# The package keeps the texts in R's data format, so R (r-base-core, which the package depends on)
# writes them out. Lines are joined into paragraphs, runs of spaces become one, and the underscores
# that mark italics are dropped.
set -eu
out=${1:?usage: make_text_corpus.sh OUT.txt}
if ! Rscript -e 'library(janeaustenr)' >/dev/null 2>&1; then
    echo "make_text_corpus.sh: needs the Debian package r-cran-janeaustenr (apt-get install r-cran-janeaustenr)" >&2
    exit 2
fi
Rscript -e 'writeLines(janeaustenr::austen_books()$text, stdout(), useBytes = TRUE)' |
    sed 's/_//g' |
    awk 'NF == 0 { if (p != "") print p; p = ""; next }
         { gsub(/^ +| +$/, ""); p = (p == "" ? $0 : p " " $0) }
         END { if (p != "") print p }' |
    tr -s ' ' > "$out"
echo "$out: $(wc -c < "$out") bytes, $(wc -l < "$out") paragraphs"
