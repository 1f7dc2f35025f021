"""The cross-encoder: MiniLM, mean pooling, and a factorised head.

The head splits the three-way decision into two the small model learns more easily:
relevance (does this window speak to the claim?) and stance among relevant windows
(support vs contradict). Probabilities are entailment = r·s, neutral = 1 - r,
contradiction = r·(1 - s); they sum to 1, so the model fits the ``NLIScores`` contract.
"""

from __future__ import annotations

import torch
from torch import nn
from transformers import AutoModel

from verifiers.training.examples import CONTRADICTION, ENTAILMENT, NOT_ENTAILMENT


class FactorizedNLI(nn.Module):
    def __init__(self, base_path: str, dropout: float = 0.1) -> None:
        super().__init__()
        self.encoder = AutoModel.from_pretrained(base_path)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(self.encoder.config.hidden_size, 2)

    def logits(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor,
    ) -> torch.Tensor:
        """(batch, 2): relevance and stance logits."""
        hidden = self.encoder(
            input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
        ).last_hidden_state
        mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1.0)
        return self.head(self.dropout(pooled))  # type: ignore[no-any-return]

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        token_type_ids: torch.Tensor,
    ) -> torch.Tensor:
        """(batch, 3) probabilities in label order entailment, neutral, contradiction."""
        return probabilities(self.logits(input_ids, attention_mask, token_type_ids))


def probabilities(logits: torch.Tensor) -> torch.Tensor:
    relevant = torch.sigmoid(logits[:, 0])
    support = torch.sigmoid(logits[:, 1])
    return torch.stack((relevant * support, 1.0 - relevant, relevant * (1.0 - support)), dim=1)


def _masked_mean(values: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    return (values * mask).sum() / mask.sum().clamp(min=1.0)


def loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Relevance on every three-way pair; stance only on relevant pairs (label 0 or 2).

    Binary negatives (``NOT_ENTAILMENT``, label 3) say only that the claim is not entailed, so
    they push down P(entailment) = relevance x support and leave the split between neutral and
    contradiction to the three-way data.
    """
    three_way = (labels != NOT_ENTAILMENT).to(logits.dtype)
    relevant = ((labels == ENTAILMENT) | (labels == CONTRADICTION)).to(logits.dtype)
    rel = nn.functional.binary_cross_entropy_with_logits(logits[:, 0], relevant, reduction="none")
    supported = (labels == ENTAILMENT).to(logits.dtype)
    stance = nn.functional.binary_cross_entropy_with_logits(
        logits[:, 1], supported, reduction="none"
    )
    total = _masked_mean(rel, three_way) + _masked_mean(stance, relevant)
    not_entailed = (labels == NOT_ENTAILMENT).to(logits.dtype)
    if bool(not_entailed.any()):
        log_entailed = nn.functional.logsigmoid(logits[:, 0]) + nn.functional.logsigmoid(
            logits[:, 1]
        )
        # -log(1 - P(entailment)), kept finite as P(entailment) approaches 1.
        binary = -torch.log1p(-torch.exp(log_entailed).clamp(max=1.0 - 1e-6))
        total = total + _masked_mean(binary, not_entailed)
    return total
