"""An actor-critic policy in the style of pytorch/examples/reinforcement_learning on a toy corridor
environment, run with `torch` bound to ember and to torch: a two-headed policy (softmax actions, value),
distributions.Categorical's sample/log_prob/entropy, discounted returns normalised with mean/std and numpy's
float32 eps, smooth_l1_loss for the critic, torch.stack of the per-step losses, Adam; then log_prob of fixed
actions and the entropy of Categorical(probs) against Categorical(logits). In the parity run both libraries
take the same actions (an inverse-CDF draw from numpy), since their generators differ."""
import math

import numpy as np
import pytest

import ember
from _porting import WeightSync, run_both, run_script, torch_fixture  # noqa: F401  (the `torch` fixture)

SCRIPT = '''
nn, F = torch.nn, torch.nn.functional
Categorical = torch.distributions.Categorical
torch.manual_seed(0)
rs = np.random.RandomState(0)

class Corridor:
    """walk left/right on 0..5 starting at 2; reward 1 at 5, episode ends at either end or after 12 steps"""
    def reset(self):
        self.pos, self.t = 2, 0
        return self.obs()
    def obs(self):
        o = np.zeros(6, dtype=np.float32); o[self.pos] = 1.0
        return o
    def step(self, a):
        self.pos += 1 if a == 1 else -1
        self.t += 1
        done = self.pos in (0, 5) or self.t >= 12
        return self.obs(), (1.0 if self.pos == 5 else -0.01), done

class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(6, 32)
        self.dropout = nn.Dropout(p=0.0)
        self.action_head = nn.Linear(32, 2)
        self.value_head = nn.Linear(32, 1)
        self.saved_actions, self.rewards = [], []
    def forward(self, x):
        x = F.relu(self.dropout(self.affine1(x)))
        return F.softmax(self.action_head(x), dim=-1), self.value_head(x)

policy = Policy()
sync(policy)
optimizer = torch.optim.Adam(policy.parameters(), lr=3e-2)
eps = np.finfo(np.float32).eps.item()
gamma = 0.99

def select_action(state):
    state = torch.from_numpy(state).float().unsqueeze(0)
    probs, value = policy(state)
    m = Categorical(probs)
    action = m.sample()
    if pick is not None:          # parity runs: the same draw in both libraries (their RNGs differ)
        action = torch.tensor([pick(probs[0].tolist())])
    policy.saved_actions.append((m.log_prob(action), value[0], m.entropy()))
    return action.item()

def finish_episode():
    R, returns = 0, []
    for r in policy.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + eps)
    policy_losses, value_losses = [], []
    for (log_prob, value, ent), R in zip(policy.saved_actions, returns):
        advantage = R - value.item()
        policy_losses.append(-log_prob * advantage - 0.01 * ent)
        value_losses.append(F.smooth_l1_loss(value, torch.tensor([R])))
    optimizer.zero_grad()
    loss = torch.stack(policy_losses).sum() + torch.stack(value_losses).sum()
    loss.backward()
    optimizer.step()
    del policy.rewards[:]
    del policy.saved_actions[:]
    return loss.item()

env = Corridor()
running_reward, ep_rewards, losses = 0, [], []
for i_episode in range(40):
    state, ep_reward = env.reset(), 0
    for t in range(1, 13):
        action = select_action(state)
        state, reward, done = env.step(action)
        policy.rewards.append(reward)
        ep_reward += reward
        if done:
            break
    running_reward = 0.05 * ep_reward + (1 - 0.05) * running_reward
    ep_rewards.append(ep_reward)
    losses.append(finish_episode())
# a deterministic check: log-probs of fixed actions under the final policy
with torch.no_grad():
    states = torch.eye(6)
    probs, values = policy(states)
    d = Categorical(probs=probs)
    fixed_lp = d.log_prob(torch.tensor([0, 1, 0, 1, 0, 1]))
    d2 = Categorical(logits=torch.log(probs))
sample_shape = tuple(d.sample((5,)).shape)
entropy_match = torch.allclose(d.entropy(), d2.entropy(), atol=1e-6)
'''


def _picker():
    draws = np.random.RandomState(7)
    return lambda probs: int(draws.rand() >= probs[0])


def _check(env):
    assert len(env["losses"]) == 40 and all(math.isfinite(v) for v in env["losses"])
    assert len(env["ep_rewards"]) == 40
    assert env["sample_shape"] == (5, 6)
    assert env["entropy_match"] is True
    lp = env["fixed_lp"]
    assert tuple(lp.shape) == (6,) and bool((lp <= 0).all())


def test_actor_critic_trains_with_ember():
    _check(run_script(SCRIPT, ember, np=np, sync=WeightSync(), pick=None))


@pytest.mark.parity
def test_actor_critic_matches_torch(torch):
    want, got = run_both(lambda lib, sync: run_script(SCRIPT, lib, np=np, sync=sync, pick=_picker()), torch)
    _check(want)
    _check(got)
    assert got["ep_rewards"] == want["ep_rewards"]
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got["fixed_lp"].numpy(), want["fixed_lp"].numpy(), rtol=1e-4, atol=1e-5)
    assert got["running_reward"] == pytest.approx(want["running_reward"], abs=1e-9)
