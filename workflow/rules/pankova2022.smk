PAPER_TARGETS["pankova2022"] = []
