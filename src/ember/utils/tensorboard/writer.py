"""torch.utils.tensorboard.writer: SummaryWriter, which appends events (scalars, histograms, text)
to an event file under `log_dir` that TensorBoard reads. Images, audio, graphs and embeddings are not
built: those methods raise NotImplementedError naming themselves."""
import os
import socket
import time
from datetime import datetime

from tensorboard.compat.proto.event_pb2 import Event
from tensorboard.summary.writer.event_file_writer import EventFileWriter

from . import summary as S


class FileWriter:
    """One event file: wraps tensorboard's EventFileWriter, stamping each summary with step and time."""

    def __init__(self, log_dir, max_queue=10, flush_secs=120, filename_suffix=""):
        self.event_writer = EventFileWriter(str(log_dir), max_queue, flush_secs, filename_suffix)

    def get_logdir(self):
        return self.event_writer.get_logdir()

    def add_summary(self, summary, global_step=None, walltime=None):
        event = Event(summary=summary, wall_time=time.time() if walltime is None else walltime)
        if global_step is not None:
            event.step = int(global_step)
        self.event_writer.add_event(event)

    def flush(self):
        self.event_writer.flush()

    def close(self):
        self.event_writer.close()


class SummaryWriter:
    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10, flush_secs=120, filename_suffix=""):
        if not log_dir:
            current_time = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", current_time + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.purge_step = purge_step
        self.max_queue = max_queue
        self.flush_secs = flush_secs
        self.filename_suffix = filename_suffix
        self.file_writer = None
        self.all_writers = None
        self._get_file_writer()

    def _get_file_writer(self):
        if self.all_writers is None or self.file_writer is None:
            self.file_writer = FileWriter(self.log_dir, self.max_queue, self.flush_secs, self.filename_suffix)
            self.all_writers = {self.file_writer.get_logdir(): self.file_writer}
        return self.file_writer

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        self._get_file_writer().add_summary(S.scalar(tag, scalar_value, new_style, double_precision),
                                            global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Each tag goes to its own run, `log_dir/<main_tag>_<tag>`, under the tag `main_tag`."""
        walltime = time.time() if walltime is None else walltime
        base = self._get_file_writer().get_logdir()
        for tag, value in tag_scalar_dict.items():
            path = os.path.join(base, main_tag.replace("/", "_") + "_" + tag)
            writer = self.all_writers.get(path)
            if writer is None:
                writer = FileWriter(path, self.max_queue, self.flush_secs, self.filename_suffix)
                self.all_writers[path] = writer
            writer.add_summary(S.scalar(main_tag, value), global_step, walltime)

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None, max_bins=None):
        self._get_file_writer().add_summary(S.histogram(tag, values, bins, max_bins), global_step, walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        self._get_file_writer().add_summary(S.text(tag, text_string), global_step, walltime)

    def _not_built(self, name):
        raise NotImplementedError(f"SummaryWriter.{name} is not implemented in ember (scalars, histograms and "
                                  "text are)")

    def add_image(self, *args, **kwargs):
        self._not_built("add_image")

    def add_images(self, *args, **kwargs):
        self._not_built("add_images")

    def add_figure(self, *args, **kwargs):
        self._not_built("add_figure")

    def add_audio(self, *args, **kwargs):
        self._not_built("add_audio")

    def add_graph(self, *args, **kwargs):
        self._not_built("add_graph")

    def add_embedding(self, *args, **kwargs):
        self._not_built("add_embedding")

    def add_hparams(self, *args, **kwargs):
        self._not_built("add_hparams")

    def add_pr_curve(self, *args, **kwargs):
        self._not_built("add_pr_curve")

    def flush(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()

    def close(self):
        for writer in (self.all_writers or {}).values():
            writer.flush()
            writer.close()
        self.file_writer = self.all_writers = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        self.close()
