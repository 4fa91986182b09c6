"""Models parallelized the ways the README shows, and their bug variants; the tests check them."""
