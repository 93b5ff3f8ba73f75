"""The pure core: transforms and maths over plain data. No I/O, no framework imports."""
