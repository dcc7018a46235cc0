// A draft outside the queries folder that helix.toml names: HelixDB never compiled it, nor does Trellis.
QUERY broken( =>
    RETURN
