"""torch.export.graph_signature: what each placeholder and each output of an exported graph stands for.

The exported graph takes parameters, buffers, lifted constants and the user's inputs as placeholders (in that
order) and returns the new values of mutated buffers / user inputs before the user's outputs; the signature
names each of them with torch's kinds (InputKind, OutputKind) and, for state, the module attribute (target).
"""
import dataclasses
import enum


class InputKind(enum.Enum):
    USER_INPUT = 1
    PARAMETER = 2
    BUFFER = 3
    CONSTANT_TENSOR = 4
    CUSTOM_OBJ = 5
    TOKEN = 6


class OutputKind(enum.Enum):
    USER_OUTPUT = 1
    LOSS_OUTPUT = 2
    BUFFER_MUTATION = 3
    GRADIENT_TO_PARAMETER = 4
    GRADIENT_TO_USER_INPUT = 5
    USER_INPUT_MUTATION = 6
    TOKEN = 7
    PARAMETER_MUTATION = 8


@dataclasses.dataclass
class TensorArgument:
    name: str


@dataclasses.dataclass
class SymIntArgument:
    name: str


@dataclasses.dataclass
class ConstantArgument:
    name: str
    value: object


@dataclasses.dataclass
class InputSpec:
    kind: InputKind
    arg: object
    target: object
    persistent: object = None

    def __post_init__(self):
        if self.kind == InputKind.BUFFER and self.persistent is None:
            raise AssertionError("InputSpec: a BUFFER needs `persistent` (True or False)")


@dataclasses.dataclass
class OutputSpec:
    kind: OutputKind
    arg: object
    target: object


def _spec_line(spec):
    line = f"{spec.arg.name}: {spec.kind.name}"
    if spec.target is not None:
        line += f" target={spec.target!r}"
    if getattr(spec, "persistent", None) is not None:
        line += f" persistent={spec.persistent}"
    return line


@dataclasses.dataclass
class ExportGraphSignature:
    """The input and output specs of an ExportedProgram's graph, in placeholder / output order."""
    input_specs: list
    output_specs: list

    def _names(self, specs, kind):
        return tuple(s.arg.name for s in specs if s.kind == kind)

    @property
    def parameters(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.PARAMETER)

    @property
    def buffers(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.BUFFER)

    @property
    def non_persistent_buffers(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.BUFFER and s.persistent is False)

    @property
    def lifted_tensor_constants(self):
        return tuple(s.target for s in self.input_specs if s.kind == InputKind.CONSTANT_TENSOR)

    @property
    def user_inputs(self):
        return tuple(s.arg.value if isinstance(s.arg, ConstantArgument) else s.arg.name
                     for s in self.input_specs if s.kind == InputKind.USER_INPUT)

    @property
    def user_outputs(self):
        return tuple(s.arg.value if isinstance(s.arg, ConstantArgument) else s.arg.name
                     for s in self.output_specs if s.kind == OutputKind.USER_OUTPUT)

    @property
    def inputs_to_parameters(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.PARAMETER}

    @property
    def inputs_to_buffers(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.BUFFER}

    @property
    def inputs_to_lifted_tensor_constants(self):
        return {s.arg.name: s.target for s in self.input_specs if s.kind == InputKind.CONSTANT_TENSOR}

    @property
    def buffers_to_mutate(self):
        return {s.arg.name: s.target for s in self.output_specs if s.kind == OutputKind.BUFFER_MUTATION}

    @property
    def parameters_to_mutate(self):
        return {s.arg.name: s.target for s in self.output_specs if s.kind == OutputKind.PARAMETER_MUTATION}

    @property
    def user_inputs_to_mutate(self):
        return {s.arg.name: s.target for s in self.output_specs if s.kind == OutputKind.USER_INPUT_MUTATION}

    @property
    def backward_signature(self):
        return None

    @property
    def assertion_dep_token(self):
        return None

    def __str__(self):
        ins = "\n".join(_spec_line(s) for s in self.input_specs)
        outs = "\n".join(_spec_line(s) for s in self.output_specs)
        return f"\n# inputs\n{ins}\n\n# outputs\n{outs}\n"
