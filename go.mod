module agentv-review

go 1.26.0

require (
	github.com/AlecAivazis/survey/v2 v2.3.7
	github.com/creack/pty v1.1.17
	github.com/gofrs/flock v0.13.2
	github.com/hinshun/vt10x v0.0.0-20220119200601-820417d04eec
	github.com/rivo/uniseg v0.4.7
	github.com/rogpeppe/go-internal v1.16.0
	github.com/urfave/cli/v2 v2.27.7
	github.com/xeipuuv/gojsonschema v1.2.0
	github.com/xrash/smetrics v0.0.0-20240521201337-686a1a2994c1
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/sys v0.49.0
	golang.org/x/term v0.0.0-20210927222741-03fcf44c2211
)

require (
	github.com/cpuguy83/go-md2man/v2 v2.0.7 // indirect
	github.com/kballard/go-shellquote v0.0.0-20180428030007-95032a82bc51 // indirect
	github.com/mattn/go-colorable v0.1.2 // indirect
	github.com/mattn/go-isatty v0.0.8 // indirect
	github.com/mgutz/ansi v0.0.0-20170206155736-9520e82c474b // indirect
	github.com/russross/blackfriday/v2 v2.1.0 // indirect
	github.com/xeipuuv/gojsonpointer v0.0.0-20180127040702-4e3ac2762d5f // indirect
	github.com/xeipuuv/gojsonreference v0.0.0-20180127040603-bd5ef7bd5415 // indirect
	golang.org/x/text v0.4.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
