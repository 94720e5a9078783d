"""Models that run on this machine, with nothing downloaded at run time."""
