module github.com/gotorch/gotorch

go 1.24

require github.com/stretchr/testify v1.10.0 // indirect
