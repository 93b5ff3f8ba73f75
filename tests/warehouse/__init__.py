"""Storage: the snapshot store on every backend, and the shipped seed files with the scripts that rebuild them."""
