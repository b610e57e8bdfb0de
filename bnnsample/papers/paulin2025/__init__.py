"""paulin2025's figure recipes: ``fig1`` (Fig. 1, W1 bias of 9 samplers on the two-batch Gaussian;
its cells are ``two_batch``'), ``fig2`` (Fig. 2, multinomial logistic regression: multilevel bias
and metrics against h; the problem and the samplers' runs are ``multinomial_runs``'s), ``fig3``
(Fig. 3, training loss and R-hat of SMS-UBU paths from perturbed SWA points) and ``fig7`` (Fig. 7,
Hessian spectral norms at random, trained, SWA and SWA + noise weights), both built on
``local_chains`` (Algorithm 3 in memory), ``fig4``
(Fig. 4, calibration against ensemble size on Fashion-MNIST CNNs; the method grid in parts and the
worker processes are ``ensemble_runs``'), ``fig5`` (Fig. 5, Celeb-A), ``fig6`` (Fig. 6, chest
X-ray) and ``table4`` (Table 4, the wide CNN on CIFAR-10): Algorithm 3 on those data sets, whose
shared recipe is ``image_sets``'."""

from . import fig1, fig2, fig3, fig4, fig5, fig6, fig7, table4  # noqa: F401  (importing them registers their recipes)
