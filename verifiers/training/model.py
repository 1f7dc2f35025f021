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


def loss(logits: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
    """Relevance on every pair; stance only on relevant pairs (label 0 or 2)."""
    relevant = (labels != 1).to(logits.dtype)
    rel_loss = nn.functional.binary_cross_entropy_with_logits(logits[:, 0], relevant)
    supported = (labels == 0).to(logits.dtype)
    stance = nn.functional.binary_cross_entropy_with_logits(
        logits[:, 1], supported, reduction="none"
    )
    stance_loss = (stance * relevant).sum() / relevant.sum().clamp(min=1.0)
    return rel_loss + stance_loss
