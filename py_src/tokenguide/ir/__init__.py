"""The intermediate form every front end builds: lexemes (`lexemes`, regular expressions over code
points with intersection and complement, hash-consed) matched on bytes (`derivatives`), and
grammars of rules over lexemes (`grammar`)."""
