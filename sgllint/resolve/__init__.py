"""Resolution: a launch site's words judged against the parsers that will
read them (SGLang's, a wrapper's, the diffusion server's), and the releases
those parsers come from."""
