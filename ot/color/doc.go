// Package color provides the colour building blocks of gmlg.
package color
