// Everything for training in one include: variables and initializers,
// learning-rate decay, regularizers, optimizers, moving averages, towers.
#ifndef DFLOW_GRAPH_TRAINING_TRAINING_H_
#define DFLOW_GRAPH_TRAINING_TRAINING_H_

#include "graph/training/adam.h"
#include "graph/training/gradient_descent.h"
#include "graph/training/learning_rate.h"
#include "graph/training/momentum.h"
#include "graph/training/moving_averages.h"
#include "graph/training/optimizer.h"
#include "graph/training/regularizers.h"
#include "graph/training/towers.h"
#include "graph/training/variables.h"

#endif  // DFLOW_GRAPH_TRAINING_TRAINING_H_
