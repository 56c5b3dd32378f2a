//go:build race

package data

// raceEnabled: under the race detector, decompressing Fashion-MNIST's
// training set takes seconds, so TestFashionMNIST reads the test set only.
const raceEnabled = true
