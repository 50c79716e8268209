/** The package version; the header of every generated file carries it. */
export const version = "0.1.0";
