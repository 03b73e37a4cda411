"""Xu et al., "Mace: a flexible framework for membership privacy estimation in generative models"
(TMLR 2022). ``registry`` declares one training step per model and
which models each figure reads; ``steps`` / ``steps_skin`` train the models (several runs each) and
save their query values; ``figures`` / ``figures_dp`` / ``figures_skin`` turn the saved queries into
Figures 1a–8; ``claims`` decides the paper's statements with :mod:`privrisk.contract.verdicts`."""
