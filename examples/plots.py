"""The pictures the examples save: a loss curve (and, for the digits, test images with the model's
predictions) as a PNG, drawn with matplotlib from the `demo` extra. Without matplotlib nothing is drawn
and a one-line message says how to get it.
"""


def _pyplot():
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")            # files only, no window
    import matplotlib.pyplot as plt
    return plt


def _moving_average(values, n):
    out, acc = [], 0.0
    for i, v in enumerate(values):
        acc += v
        if i >= n:
            acc -= values[i - n]
        out.append(acc / min(i + 1, n))
    return out


def _loss_axes(ax, train_loss, evals, eval_label, title):
    steps = range(1, len(train_loss) + 1)
    ax.plot(steps, train_loss, color="#9ecae1", linewidth=0.8, label="train loss (each step)")
    if len(train_loss) >= 10:
        smooth = _moving_average(train_loss, max(5, len(train_loss) // 30))
        ax.plot(steps, smooth, color="#08519c", linewidth=2, label="train loss (moving average)")
    if evals:
        xs, ys = zip(*evals)
        ax.plot(xs, ys, "o-", color="#e6550d", linewidth=2, markersize=5, label=eval_label)
    ax.set_xlabel("step")
    ax.set_ylabel("loss")
    ax.set_title(title)
    ax.grid(alpha=0.3)


def save_loss_curve(path, train_loss, evals=(), eval_label="validation loss", title="training loss"):
    """A PNG of the per-step training loss (raw and smoothed) with optional (step, value) evaluations.
    Returns the path, or None (with a message) when matplotlib is missing."""
    plt = _pyplot()
    if plt is None:
        print("matplotlib is not installed (pip install -e .[demo]): no loss curve PNG")
        return None
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    _loss_axes(ax, list(train_loss), list(evals), eval_label, title)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def save_digits_report(path, train_loss, epoch_accuracy, images, labels, predictions, steps_per_epoch):
    """The digits demo's PNG: the loss curve with test accuracy per epoch on a second axis, and a grid
    of test images titled with the prediction (green when right, red when wrong; the wrong ones first)."""
    plt = _pyplot()
    if plt is None:
        print("matplotlib is not installed (pip install -e .[demo]): no PNG")
        return None
    order = sorted(range(len(images)), key=lambda i: predictions[i] == labels[i])   # mistakes first
    images = [images[i] for i in order]
    labels = [labels[i] for i in order]
    predictions = [predictions[i] for i in order]
    n = min(len(images), 24)
    cols = 8
    rows = (n + cols - 1) // cols
    fig = plt.figure(figsize=(11, 4.2 + 1.45 * rows), dpi=100)
    grid = fig.add_gridspec(1 + rows, cols, height_ratios=[4.2] + [1.45] * rows, hspace=0.55)
    ax = fig.add_subplot(grid[0, :])
    _loss_axes(ax, list(train_loss), [], "", "DigitsCNN on 8x8 digits: training loss and test accuracy")
    if epoch_accuracy:
        acc_ax = ax.twinx()
        xs = [steps_per_epoch * (i + 1) for i in range(len(epoch_accuracy))]
        acc_ax.plot(xs, [100 * a for a in epoch_accuracy], "s-", color="#31a354", linewidth=2,
                    label="test accuracy (%)")
        acc_ax.set_ylabel("test accuracy (%)")
        acc_ax.set_ylim(0, 100)
        handles, names = ax.get_legend_handles_labels()
        more, more_names = acc_ax.get_legend_handles_labels()
        acc_ax.legend(handles + more, names + more_names, loc="center right")
    else:
        ax.legend()
    for i in range(n):
        a = fig.add_subplot(grid[1 + i // cols, i % cols])
        a.imshow(images[i], cmap="gray_r", interpolation="nearest")
        right = predictions[i] == labels[i]
        a.set_title(f"pred {predictions[i]}" + ("" if right else f" (is {labels[i]})"),
                    color="#31a354" if right else "#de2d26", fontsize=10)
        a.set_xticks([])
        a.set_yticks([])
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path
