"""Two more tutorial programs, run with `torch` bound to ember and to torch (no gap found in either; kept as
regression coverage of what they touch):
- the translation tutorial's Seq2SeqTransformer: nn.Transformer (encoder and decoder) with a float causal mask
  built by triu/masked_fill(-inf), bool key-padding masks, a registered sinusoidal positional-encoding buffer,
  xavier_uniform_ init, CrossEntropyLoss(ignore_index, label_smoothing), Adam(betas, eps), then greedy decoding
  through transformer.encoder / transformer.decoder;
- the DQN tutorial: a namedtuple/deque replay memory sampled with `random`, gather on the chosen actions, a
  bool mask for non-final states, SmoothL1Loss, clip_grad_value_, AdamW(amsgrad=True) and the soft update of
  the target network through state_dict arithmetic and load_state_dict."""
import math
import random
from collections import deque, namedtuple

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

TRANSFORMER = '''
nn = torch.nn
Tensor = torch.Tensor
torch.manual_seed(0)
rs = np.random.RandomState(0)
PAD_IDX, BOS_IDX, EOS_IDX, V = 1, 2, 3, 16
S, B = 7, 4
src = torch.from_numpy(rs.randint(4, V, size=(S, B))).long()
src[5:, 1] = PAD_IDX
tgt = torch.cat([torch.full((1, B), BOS_IDX, dtype=torch.long), torch.flip(src, [0])], 0)

class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 50):
        super().__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer('pos_embedding', pos_embedding)
    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])

class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size
    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)

class Seq2SeqTransformer(nn.Module):
    def __init__(self, E=16):
        super().__init__()
        self.transformer = nn.Transformer(d_model=E, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                                          dim_feedforward=32, dropout=0.0)
        self.generator = nn.Linear(E, V)
        self.src_tok_emb = TokenEmbedding(V, E)
        self.tgt_tok_emb = TokenEmbedding(V, E)
        self.positional_encoding = PositionalEncoding(E, dropout=0.0)
    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)
    def encode(self, src, src_mask):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)
    def decode(self, tgt, memory, tgt_mask):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)

def generate_square_subsequent_mask(sz):
    mask = (torch.triu(torch.ones((sz, sz))) == 1).transpose(0, 1)
    return mask.float().masked_fill(mask == 0, float('-inf')).masked_fill(mask == 1, float(0.0))

def create_mask(src, tgt):
    src_seq_len, tgt_seq_len = src.shape[0], tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len)
    src_mask = torch.zeros((src_seq_len, src_seq_len)).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask

model = Seq2SeqTransformer()
for p in model.parameters():
    if p.dim() > 1:
        nn.init.xavier_uniform_(p)
sync(model)
loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX, label_smoothing=0.05)
optimizer = torch.optim.Adam(model.parameters(), lr=0.003, betas=(0.9, 0.98), eps=1e-9)
losses = []
for it in range(8):
    model.train()
    tgt_input = tgt[:-1, :]
    src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input)
    logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
    optimizer.zero_grad()
    tgt_out = tgt[1:, :]
    loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
    loss.backward()
    optimizer.step()
    losses.append(loss.item())
model.eval()
with torch.no_grad():
    s = src[:, :1]
    memory = model.encode(s, torch.zeros(S, S).type(torch.bool))
    ys = torch.ones(1, 1).fill_(BOS_IDX).type(torch.long)
    for i in range(S):
        tgt_mask = (generate_square_subsequent_mask(ys.size(0)).type(torch.bool))
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(s.data).fill_(next_word)], dim=0)
decoded = ys.flatten().tolist()
'''

DQN = '''
nn, F, optim = torch.nn, torch.nn.functional, torch.optim
random.seed(0)
Transition = namedtuple('Transition', ('state', 'action', 'next_state', 'reward'))
class ReplayMemory(object):
    def __init__(self, capacity):
        self.memory = deque([], maxlen=capacity)
    def push(self, *args):
        self.memory.append(Transition(*args))
    def sample(self, batch_size):
        return random.sample(self.memory, batch_size)
    def __len__(self):
        return len(self.memory)
class DQN(nn.Module):
    def __init__(self, n_observations, n_actions):
        super(DQN, self).__init__()
        self.layer1 = nn.Linear(n_observations, 32)
        self.layer2 = nn.Linear(32, 32)
        self.layer3 = nn.Linear(32, n_actions)
    def forward(self, x):
        x = F.relu(self.layer1(x))
        x = F.relu(self.layer2(x))
        return self.layer3(x)
class Chain:
    def reset(self):
        self.s = 0; return np.eye(5, dtype=np.float32)[0]
    def step(self, a):
        self.s = min(4, self.s + 1) if a == 1 else max(0, self.s - 1)
        done = self.s == 4
        return np.eye(5, dtype=np.float32)[self.s], (1.0 if done else -0.05), done
BATCH_SIZE, GAMMA, EPS_START, EPS_END, EPS_DECAY, TAU, LR = 16, 0.99, 0.9, 0.05, 100, 0.005, 1e-3
env = Chain()
policy_net = DQN(5, 2)
target_net = DQN(5, 2)
sync(policy_net)
target_net.load_state_dict(policy_net.state_dict())
optimizer = optim.AdamW(policy_net.parameters(), lr=LR, amsgrad=True)
memory = ReplayMemory(1000)
steps_done = 0
def select_action(state):
    global steps_done
    sample = random.random()
    eps_threshold = EPS_END + (EPS_START - EPS_END) * math.exp(-1. * steps_done / EPS_DECAY)
    steps_done += 1
    if sample > eps_threshold:
        with torch.no_grad():
            return policy_net(state).max(1).indices.view(1, 1)
    else:
        return torch.tensor([[random.randrange(2)]], dtype=torch.long)
losses = []
def optimize_model():
    if len(memory) < BATCH_SIZE:
        return
    transitions = memory.sample(BATCH_SIZE)
    batch = Transition(*zip(*transitions))
    non_final_mask = torch.tensor(tuple(map(lambda s: s is not None, batch.next_state)), dtype=torch.bool)
    non_final_next_states = torch.cat([s for s in batch.next_state if s is not None])
    state_batch = torch.cat(batch.state)
    action_batch = torch.cat(batch.action)
    reward_batch = torch.cat(batch.reward)
    state_action_values = policy_net(state_batch).gather(1, action_batch)
    next_state_values = torch.zeros(BATCH_SIZE)
    with torch.no_grad():
        next_state_values[non_final_mask] = target_net(non_final_next_states).max(1).values
    expected_state_action_values = (next_state_values * GAMMA) + reward_batch
    criterion = nn.SmoothL1Loss()
    loss = criterion(state_action_values, expected_state_action_values.unsqueeze(1))
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_value_(policy_net.parameters(), 100)
    optimizer.step()
    losses.append(loss.item())
durations = []
for i_episode in range(12):
    state = torch.tensor(env.reset(), dtype=torch.float32).unsqueeze(0)
    for t in range(30):
        action = select_action(state)
        observation, reward, terminated = env.step(action.item())
        reward = torch.tensor([reward])
        next_state = None if terminated else torch.tensor(observation, dtype=torch.float32).unsqueeze(0)
        memory.push(state, action, next_state, reward)
        state = next_state
        optimize_model()
        target_net_state_dict = target_net.state_dict()
        policy_net_state_dict = policy_net.state_dict()
        for key in policy_net_state_dict:
            target_net_state_dict[key] = policy_net_state_dict[key]*TAU + target_net_state_dict[key]*(1-TAU)
        target_net.load_state_dict(target_net_state_dict)
        if terminated:
            durations.append(t + 1)
            break
    else:
        durations.append(30)
'''


def _run(script, lib, sync):
    return run_script(script, lib, np=np, math=math, random=random, deque=deque, namedtuple=namedtuple, sync=sync)


def test_transformer_and_dqn_with_ember():
    env = _run(TRANSFORMER, ember, WeightSync())
    assert len(env["losses"]) == 8 and env["losses"][-1] < env["losses"][0]
    assert len(env["decoded"]) == 8 and env["decoded"][0] == 2
    env = _run(DQN, ember, WeightSync())
    assert len(env["durations"]) == 12 and env["losses"]


@pytest.mark.parity
def test_transformer_and_dqn_match_torch(torch):
    for script, keys in ((TRANSFORMER, ("losses",)), (DQN, ("losses",))):
        want, got = run_both(lambda lib, sync: _run(script, lib, sync), torch)
        for key in keys:
            np.testing.assert_allclose(got[key], want[key], rtol=1e-4, atol=1e-6)
    assert got["durations"] == want["durations"]
